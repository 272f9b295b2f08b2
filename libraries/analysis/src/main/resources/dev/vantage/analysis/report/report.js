/*
 * The page of `vantage report`: draws every table and chart from the JSON in #vantage-data. Trace text goes into
 * the DOM as text (textContent), never as markup. When every chart has drawn, the root element gets
 * data-vantage-report="rendered" and data-vantage-charts=<count>; on a script error, "error" (set by the handler
 * installed before any script).
 */
(function () {
    'use strict';
    var root = document.documentElement;
    var data = JSON.parse(document.getElementById('vantage-data').textContent);
    var app = document.getElementById('app');
    var charts = [];
    var CATEGORIES = [
        ['kernelNanos', 'Kernel'], ['memcpyNanos', 'Memcpy'], ['memsetNanos', 'Memset'],
        ['communicationNanos', 'Communication'], ['runtimeNanos', 'Runtime'], ['cpuOpNanos', 'CPU op'],
        ['otherNanos', 'Other']
    ];

    function el(tag, attrs, text) {
        var e = document.createElement(tag);
        Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
        if (text !== undefined && text !== null) {
            e.textContent = String(text);
        }
        return e;
    }

    /** Nanoseconds as microseconds with three decimals, the unit of the csv views. */
    function us(ns) { return (ns / 1000).toFixed(3); }
    function ms(ns) { return Math.round(ns / 1000) / 1000; }
    function mib(bytes) { return Math.round(bytes / 1048576 * 1000) / 1000; }

    function section(id, title, note) {
        var s = el('section', {id: id});
        s.appendChild(el('h2', {}, title));
        if (note) {
            s.appendChild(el('p', {'class': 'note'}, note));
        }
        app.appendChild(s);
        return s;
    }

    function chart(parent, id, option) {
        var div = el('div', {id: id, 'class': 'chart'});
        parent.appendChild(div);
        var c = echarts.init(div, null, {renderer: 'svg'});
        option.animation = false;
        c.setOption(option);
        charts.push({chart: c, div: div});
        return c;
    }

    /**
     * A sortable table: columns [{key, label, num, fmt}]; a click on a header sorts by it, again reverses.
     */
    function table(parent, id, columns, rows, sortKey, ascending) {
        var t = el('table', {id: id, 'class': 'sortable'});
        var thead = el('thead');
        var tr = el('tr');
        var tbody = el('tbody');
        var state = {key: sortKey, desc: !ascending};
        columns.forEach(function (c) {
            var th = el('th', {'data-key': c.key, 'class': c.num ? 'num' : ''}, c.label);
            th.addEventListener('click', function () {
                state.desc = state.key === c.key ? !state.desc : !!c.num;
                state.key = c.key;
                fill();
            });
            tr.appendChild(th);
        });
        thead.appendChild(tr);
        t.appendChild(thead);
        t.appendChild(tbody);
        function fill() {
            var col = columns.filter(function (c) { return c.key === state.key; })[0];
            var sorted = rows.slice();
            if (col) {
                sorted.sort(function (a, b) {
                    var x = a[col.key], y = b[col.key];
                    var r = col.num ? x - y : String(x).localeCompare(String(y));
                    return state.desc ? -r : r;
                });
            }
            while (tbody.firstChild) {
                tbody.removeChild(tbody.firstChild);
            }
            sorted.forEach(function (row) {
                var r = el('tr');
                columns.forEach(function (c) {
                    var v = row[c.key];
                    r.appendChild(el('td', {'class': c.num ? 'num' : ''}, c.fmt ? c.fmt(v) : v));
                });
                tbody.appendChild(r);
            });
            Array.prototype.forEach.call(thead.querySelectorAll('th'), function (th) {
                th.setAttribute('aria-sort', th.getAttribute('data-key') === state.key
                    ? (state.desc ? 'descending' : 'ascending') : 'none');
            });
        }
        fill();
        parent.appendChild(t);
        return t;
    }

    function toggle(parent, name, choices, onChange) {
        var bar = el('div', {'class': 'toggle', role: 'radiogroup'});
        choices.forEach(function (c, i) {
            var b = el('button', {type: 'button', 'data-value': c[0], 'aria-pressed': i === 0 ? 'true' : 'false'},
                c[1]);
            b.addEventListener('click', function () {
                Array.prototype.forEach.call(bar.children, function (x) { x.setAttribute('aria-pressed', 'false'); });
                b.setAttribute('aria-pressed', 'true');
                onChange(c[0]);
            });
            bar.appendChild(b);
        });
        parent.appendChild(bar);
    }

    /**
     * The TensorBoard plugin's GPU summary of the trace's rank, from the engine's gpu analysis: per device, GPU
     * utilization, estimated SM efficiency and achieved occupancy, and the share of kernel time in Tensor Core kernels.
     */
    function gpuSummary(parent, t) {
        var gpu = (data.analyses || []).filter(function (x) { return x.name === 'gpu'; })[0];
        var rank = Math.max(0, t.rank);
        var rows = gpu ? gpu.rows.filter(function (r) { return r[0] === rank; }) : [];
        if (rows.length === 0) {
            return;
        }
        var at = {};
        gpu.columns.forEach(function (c, i) { at[c] = i; });
        function pct(v) { return v === null || v === undefined ? '' : (100 * v).toFixed(2) + ' %'; }
        parent.appendChild(el('h3', {}, 'GPU summary'));
        table(parent, 'gpu-summary', [
            {key: 'device', label: 'Device', num: true},
            {key: 'util', label: 'GPU utilization', num: true, fmt: pct},
            {key: 'sm', label: 'Est. SM efficiency', num: true, fmt: pct},
            {key: 'occupancy', label: 'Est. achieved occupancy', num: true, fmt: function (v) {
                return v === null || v === undefined ? '' : v.toFixed(2) + ' %';
            }},
            {key: 'tc', label: 'Kernel time using Tensor Cores', num: true, fmt: function (v) {
                return v === null || v === undefined ? '' : v.toFixed(2) + ' %';
            }}], rows.map(function (r) {
                return {device: r[at.device], util: r[at.gpu_utilization], sm: r[at.sm_efficiency],
                    occupancy: r[at.achieved_occupancy], tc: r[at.tensor_core_pct]};
            }), null);
    }

    /**
     * The advice on the trace's rank, from the engine's advice analysis: each rule that fired, the figures that fired
     * it, and what to try.
     */
    function advice(parent, t) {
        var a = (data.analyses || []).filter(function (x) { return x.name === 'advice'; })[0];
        if (!a) {
            return;
        }
        var rank = Math.max(0, t.rank);
        var at = {};
        a.columns.forEach(function (c, i) { at[c] = i; });
        var rows = a.rows.filter(function (r) { return r[at.rank] === rank; });
        parent.appendChild(el('h3', {}, 'Advice'));
        if (rows.length === 0) {
            parent.appendChild(el('p', {'class': 'advice-none'}, 'No rule fired on this trace.'));
            return;
        }
        table(parent, 'advice', [
            {key: 'rule', label: 'Rule'},
            {key: 'evidence', label: 'Evidence'},
            {key: 'advice', label: 'Advice'}], rows.map(function (r) {
                return {rule: r[at.rule], evidence: r[at.evidence], advice: r[at.advice]};
            }), null);
    }

    function overview(t) {
        var s = section('overview', 'Overview: step time breakdown',
            'Each instant of a step counts once, in the first busy category in the order shown; device work ' +
            'belongs to the step it starts in. Times in µs.');
        gpuSummary(s, t);
        advice(s, t);
        if (t.steps.length === 0) {
            s.appendChild(el('p', {}, 'This trace has no ProfilerStep#N spans.'));
            return;
        }
        chart(s, 'chart-steps', {
            tooltip: {trigger: 'axis', axisPointer: {type: 'shadow'}},
            legend: {top: 0},
            grid: {left: 60, right: 20, top: 40, bottom: 30},
            xAxis: {type: 'category', data: t.steps.map(function (x) { return 'Step ' + x.step; })},
            yAxis: {type: 'value', name: 'ms'},
            series: CATEGORIES.map(function (c) {
                return {name: c[1], type: 'bar', stack: 'step',
                    data: t.steps.map(function (x) { return ms(x[c[0]]); })};
            })
        });
        var columns = [{key: 'step', label: 'Step', num: true}, {key: 'durationNanos', label: 'Step time',
            num: true, fmt: us}];
        CATEGORIES.forEach(function (c) { columns.push({key: c[0], label: c[1], num: true, fmt: us}); });
        table(s, 'steps-table', columns, t.steps, null);
    }

    function operators(t) {
        var s = section('operators', 'Operators', 'Host operators (cpu_op). Times in µs; p99 of one call\'s ' +
            'total time. Click a header to sort.');
        var holder = el('div');
        function show(group) {
            while (holder.firstChild) {
                holder.removeChild(holder.firstChild);
            }
            var columns = [{key: 'name', label: 'Name'}];
            if (group === 'shape') {
                columns.push({key: 'inputShapes', label: 'Input shapes'});
            }
            columns = columns.concat([
                {key: 'count', label: 'Calls', num: true},
                {key: 'selfNanos', label: 'Self', num: true, fmt: us},
                {key: 'totalNanos', label: 'Total', num: true, fmt: us},
                {key: 'meanNanos', label: 'Mean', num: true, fmt: us},
                {key: 'p99Nanos', label: 'p99', num: true, fmt: us},
                {key: 'deviceSelfNanos', label: 'Device self', num: true, fmt: us},
                {key: 'deviceTotalNanos', label: 'Device total', num: true, fmt: us}]);
            table(holder, 'ops-table', columns, group === 'shape' ? t.opsByShape : t.ops, 'selfNanos');
        }
        toggle(s, 'opgroup', [['name', 'Group by name'], ['shape', 'Group by name and input shape']], show);
        s.appendChild(holder);
        show('name');
    }

    function kernels(t) {
        var s = section('kernels', 'Kernels', 'Device work: kernels, copies, fills; by name, or by name and the ' +
            'operator that launched it (External id). Times in µs.');
        var holder = el('div');
        function show(group) {
            while (holder.firstChild) {
                holder.removeChild(holder.firstChild);
            }
            var columns = [{key: 'name', label: 'Name'}, {key: 'type', label: 'Type'}];
            if (group === 'op') {
                columns.push({key: 'op', label: 'Operator'});
            }
            columns = columns.concat([
                {key: 'count', label: 'Count', num: true},
                {key: 'totalNanos', label: 'Total', num: true, fmt: us},
                {key: 'meanNanos', label: 'Mean', num: true, fmt: us},
                {key: 'minNanos', label: 'Min', num: true, fmt: us},
                {key: 'maxNanos', label: 'Max', num: true, fmt: us},
                {key: 'p99Nanos', label: 'p99', num: true, fmt: us}]);
            table(holder, 'kernels-table', columns, group === 'op' ? t.kernelsByOp : t.kernels, 'totalNanos');
        }
        toggle(s, 'kernelgroup', [['name', 'By name'], ['op', 'By name and operator']], show);
        s.appendChild(holder);
        if (t.kernels.length === 0) {
            s.appendChild(el('p', {}, 'This trace has no device work.'));
        }
        show('name');
    }

    function memory(t) {
        var s = section('memory', 'Memory', 'Allocator totals after each [memory] event, per device, in MiB.');
        if (t.memory.length === 0) {
            s.appendChild(el('p', {}, 'This trace has no [memory] events (profile with MEM).'));
            return;
        }
        var first = Math.min.apply(null, t.memory.map(function (m) {
            return m.points.length ? m.points[0].epochNanos : Infinity;
        }));
        var series = [];
        t.memory.forEach(function (m) {
            ['allocatedBytes', 'reservedBytes'].forEach(function (k) {
                series.push({name: m.device + (k === 'allocatedBytes' ? ' allocated' : ' reserved'), type: 'line',
                    step: 'end', showSymbol: false,
                    data: m.points.map(function (p) { return [ms(p.epochNanos - first), mib(p[k])]; })});
            });
        });
        chart(s, 'chart-memory', {
            tooltip: {trigger: 'axis'},
            legend: {top: 0},
            grid: {left: 60, right: 20, top: 40, bottom: 40},
            xAxis: {type: 'value', name: 'ms', nameLocation: 'end'},
            yAxis: {type: 'value', name: 'MiB'},
            series: series
        });
        table(s, 'memory-table', [{key: 'device', label: 'Device'}, {key: 'events', label: 'Events', num: true},
            {key: 'peakAllocatedBytes', label: 'Peak allocated (MiB)', num: true, fmt: mib},
            {key: 'peakReservedBytes', label: 'Peak reserved (MiB)', num: true, fmt: mib}], t.memory, null);
    }

    function ranks() {
        var s = section('ranks', 'Ranks: step time and stragglers', 'Mean step time per rank, split into ' +
            'kernel, communication (not overlapped) and the rest; the line is the median over ranks.');
        var r = data.ranks;
        var slow = data.ranks[data.slowestRank];
        s.appendChild(el('p', {'class': slow.straggler ? 'straggler' : ''}, 'Slowest: rank ' + slow.rank + ' (' +
            slow.source + '), mean step ' + us(slow.meanStepNanos) + ' µs, ' + slow.ratioToMedian.toFixed(3) +
            '× the median' + (slow.straggler ? ': a straggler' : '')));
        var labels = r.map(function (x) { return 'rank ' + x.rank; });
        chart(s, 'chart-ranks', {
            tooltip: {trigger: 'axis', axisPointer: {type: 'shadow'}},
            legend: {top: 0},
            grid: {left: 60, right: 70, top: 40, bottom: 30},
            xAxis: {type: 'category', data: labels},
            yAxis: {type: 'value', name: 'ms'},
            series: [['meanKernelNanos', 'Kernel'], ['meanCommunicationNanos', 'Communication'],
                ['meanOtherNanos', 'Other']].map(function (c, i) {
                var sr = {name: c[1], type: 'bar', stack: 'rank',
                    data: r.map(function (x) { return ms(x[c[0]]); })};
                if (i === 0) {
                    sr.markLine = {symbol: 'none', label: {formatter: 'median'},
                        data: [{yAxis: ms(data.medianStepNanos)}]};
                }
                return sr;
            })
        });
        table(s, 'ranks-table', [{key: 'rank', label: 'Rank', num: true}, {key: 'source', label: 'Trace'},
            {key: 'steps', label: 'Steps', num: true},
            {key: 'meanStepNanos', label: 'Mean step (µs)', num: true, fmt: us},
            {key: 'maxStepNanos', label: 'Max step (µs)', num: true, fmt: us},
            {key: 'ratioToMedian', label: '× median', num: true, fmt: function (v) { return v.toFixed(3); }},
            {key: 'straggler', label: 'Straggler', fmt: function (v) { return v ? 'yes' : ''; }}], r, 'rank', true);
    }

    function opt(v, digits) { return v === null || v === undefined ? '-' : Number(v).toFixed(digits); }

    function launches(t) {
        if (!t.kernelLaunches || t.kernelLaunches.length === 0) {
            return;
        }
        var s = section('kernel-launches', 'Kernels: launch geometry, occupancy and Tensor Cores',
            'Kernels by name and launch geometry (grid, block, registers per thread, shared memory) as CUPTI ' +
            'recorded them; blocks and warps per SM and the estimated achieved occupancy are means weighted by ' +
            'duration; Tensor Cores from the kernel\'s name. Times in µs.');
        table(s, 'launches-table', [{key: 'name', label: 'Name'}, {key: 'geometry', label: 'Geometry'},
            {key: 'count', label: 'Count', num: true},
            {key: 'totalNanos', label: 'Total', num: true, fmt: us},
            {key: 'meanBlocksPerSm', label: 'Blocks per SM', num: true, fmt: function (v) { return opt(v, 2); }},
            {key: 'meanWarpsPerSm', label: 'Warps per SM', num: true, fmt: function (v) { return opt(v, 2); }},
            {key: 'meanOccupancyPct', label: 'Est. occupancy %', num: true, fmt: function (v) { return opt(v, 1); }},
            {key: 'tensorCores', label: 'Tensor Cores', fmt: function (v) { return v ? 'yes' : 'no'; }}],
            t.kernelLaunches, 'totalNanos');
    }

    /** Computation, overlapped and non-overlapped communication, and the rest, per rank: analyze's figures. */
    function distributed() {
        var s = section('distributed', 'Distributed: computation and communication per rank',
            'Per rank, over all its device work (as vantage analyze\'s overlap): computation not overlapped by ' +
            'communication, communication overlapped by computation, communication not overlapped; and other: ' +
            'the steps\' time with no device work of the step running (analyze\'s idle_time). In ms.');
        var rows = data.traces.map(function (t) {
            var o = t.overlap;
            return {rank: t.rank, source: t.source, computation: o.computeNanos - o.overlappedNanos,
                overlapped: o.overlappedNanos, communication: o.communicationNanos - o.overlappedNanos,
                other: o.stepNanos - o.busyNanos, steps: o.stepNanos};
        });
        var parts = [['computation', 'Computation'], ['overlapped', 'Overlapped communication'],
            ['communication', 'Communication (not overlapped)'], ['other', 'Other']];
        chart(s, 'chart-distributed', {
            tooltip: {trigger: 'axis', axisPointer: {type: 'shadow'}},
            legend: {top: 0},
            grid: {left: 60, right: 20, top: 40, bottom: 30},
            xAxis: {type: 'category', data: rows.map(function (x) { return 'rank ' + x.rank; })},
            yAxis: {type: 'value', name: 'ms'},
            series: parts.map(function (c) {
                return {name: c[1], type: 'bar', stack: 'rank', data: rows.map(function (x) { return ms(x[c[0]]); })};
            })
        });
        var columns = [{key: 'rank', label: 'Rank', num: true}, {key: 'source', label: 'Trace'}];
        parts.forEach(function (c) { columns.push({key: c[0], label: c[1] + ' (µs)', num: true, fmt: us}); });
        columns.push({key: 'steps', label: 'Steps\' time (µs)', num: true, fmt: us});
        table(s, 'distributed-table', columns, rows, 'rank', true);
        var comm = [];
        data.traces.forEach(function (t) {
            t.collectives.forEach(function (c) {
                comm.push({rank: t.rank, name: c.name, calls: c.calls, bytes: c.sizedCalls > 0 ? c.bytes : null,
                    meanBytes: c.sizedCalls > 0 ? c.bytes / c.sizedCalls : null, deviceNanos: c.deviceNanos,
                    meanNanos: c.calls > 0 ? c.deviceNanos / c.calls : 0});
            });
        });
        s.appendChild(el('h3', {}, 'Communication operations'));
        if (comm.length === 0) {
            s.appendChild(el('p', {}, 'No communication work on the devices.'));
            return;
        }
        table(s, 'collectives-table', [{key: 'rank', label: 'Rank', num: true}, {key: 'name', label: 'Collective'},
            {key: 'calls', label: 'Calls', num: true},
            {key: 'bytes', label: 'Total size (bytes)', num: true, fmt: function (v) { return opt(v, 0); }},
            {key: 'meanBytes', label: 'Mean size (bytes)', num: true, fmt: function (v) { return opt(v, 0); }},
            {key: 'deviceNanos', label: 'Device time (µs)', num: true, fmt: us},
            {key: 'meanNanos', label: 'Mean (µs)', num: true, fmt: us}], comm, 'rank', true);
    }

    /** The trace engine's device analyses of the report's traces, every rank, as `vantage analyze` names them. */
    function deviceAnalyses() {
        var tables = (data.analyses || []).filter(function (t) { return t.rows.length > 0; });
        if (tables.length === 0) {
            return;
        }
        var s = section('device-analyses', 'Device analyses',
            'HolisticTraceAnalysis\'s temporal, kernel and idle time breakdowns, launch, queue and bandwidth summaries, and the ' +
            'TensorBoard plugin\'s GPU figures, for every rank; names and columns as HTA gives them, times in µs ' +
            '(vantage analyze prints the same tables, and the per-launch series).');
        tables.forEach(function (t) {
            s.appendChild(el('h3', {}, t.name));
            var columns = t.columns.map(function (c, i) {
                var num = t.rows.some(function (r) { return typeof r[i] === 'number'; });
                return {key: 'c' + i, label: c, num: num, fmt: num ? function (v) {
                    return v === null || v === undefined ? '' : (Number.isInteger(v) ? String(v) : v.toFixed(3));
                } : function (v) {
                    // a templated kernel's name runs to thousands of characters; analyze's csv has it whole
                    var text = v === null || v === undefined ? '' : String(v);
                    return text.length > 120 ? text.slice(0, 119) + '…' : text;
                }};
            });
            var rows = t.rows.map(function (r) {
                var o = {};
                r.forEach(function (v, i) { o['c' + i] = v; });
                return o;
            });
            table(s, 'analysis-' + t.name, columns, rows, null);
        });
    }

    function render(index) {
        charts.forEach(function (c) { c.chart.dispose(); });
        charts = [];
        while (app.firstChild) {
            app.removeChild(app.firstChild);
        }
        var t = data.traces[index];
        app.appendChild(el('p', {'class': 'meta'}, t.source + (t.rank >= 0 ? ', rank ' + t.rank + ' of ' +
            t.worldSize : '') + ', ' + t.events + ' events, ' + t.steps.length + ' steps'));
        if (data.ranks.length > 0) {
            ranks();
            distributed();
        } else if (t.collectives && t.collectives.length > 0) {
            distributed();
        }
        overview(t);
        operators(t);
        kernels(t);
        launches(t);
        memory(t);
        deviceAnalyses();
        var drawn = charts.filter(function (c) { return c.div.querySelector('svg path') !== null; }).length;
        if (root.getAttribute('data-vantage-report') !== 'error') {
            root.setAttribute('data-vantage-charts', String(charts.length));
            root.setAttribute('data-vantage-report', drawn === charts.length ? 'rendered' : 'incomplete');
        }
    }

    if (data.traces.length > 1) {
        var picker = document.getElementById('trace-picker');
        var label = el('label', {'for': 'trace-select'}, 'Trace: ');
        var select = el('select', {id: 'trace-select'});
        data.traces.forEach(function (t, i) {
            select.appendChild(el('option', {value: String(i)}, (t.rank >= 0 ? 'rank ' + t.rank + ': ' : '') +
                t.source));
        });
        select.addEventListener('change', function () { render(Number(select.value)); });
        picker.appendChild(label);
        picker.appendChild(select);
    }
    window.addEventListener('resize', function () { charts.forEach(function (c) { c.chart.resize(); }); });
    render(0);
}());
