/*
 * The page of `vantage board`: the runs list (refreshed every two seconds, so runs written into the log directory
 * appear), a run's views as tabs, and each view's sections: sortable, filterable tables and charts with tooltips;
 * two runs compared (the open one and one chosen from the list); and live capture on this machine's platforms
 * (data-board-platforms=<count> once listed, each row's data-capture=idle|waiting|recording|unavailable,
 * data-board-live="start:<pid>" or "stop:<pid>" once answered, with ":error" when refused).
 * Everything from a trace goes into the page as text (textContent), never as markup. The root element says what is
 * shown, for tests and scripts: data-board="ready" once the list is drawn, data-board-view="<run>/<view>" and
 * data-board-charts=<count> once a view has drawn, data-board-pending="true" while the run's analyses are still
 * being computed (the view is asked for again every two seconds, and drawn again when it changed), and
 * data-board="error" on a script error.
 * The page `vantage report` writes holds the board's answers in the element vantage-board-answers: the script reads
 * them from there (data-board-static="true"), never from a server, and offers no choice that would need one.
 */
(function () {
    'use strict';
    var root = document.documentElement;
    window.addEventListener('error', function () { root.setAttribute('data-board', 'error'); });
    var answers = document.getElementById('vantage-board-answers');
    var STATIC = answers ? JSON.parse(answers.textContent) : null;
    if (STATIC) {
        root.setAttribute('data-board-static', 'true');
    }
    var runsBody = document.querySelector('#runs tbody');
    var filter = document.getElementById('run-filter');
    var viewEl = document.getElementById('view');
    var tabs = document.getElementById('tabs');
    var charts = [];
    var runs = [];
    var current = {run: null, view: null};
    var generation = 0;

    function el(tag, attrs, text) {
        var e = document.createElement(tag);
        Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
        if (text !== undefined && text !== null) {
            e.textContent = String(text);
        }
        return e;
    }

    function clear(e) {
        while (e.firstChild) {
            e.removeChild(e.firstChild);
        }
    }

    function get(url) {
        if (STATIC) {
            var body = STATIC[url];
            return body === undefined ? Promise.reject(new Error('This page holds each view as vantage board first'
                    + ' draws it; open the trace with vantage board for the rest.'))
                : body.error ? Promise.reject(new Error(body.error)) : Promise.resolve(body);
        }
        return fetch(url, {credentials: 'same-origin'}).then(function (r) {
            return r.json().then(function (body) {
                if (!r.ok) {
                    throw new Error(body && body.error ? body.error : 'HTTP ' + r.status);
                }
                return body;
            });
        });
    }

    /*
     * Live capture: this machine's platforms, each with its capture's state and a Start and a Stop button; a row
     * whose capture waits or records is asked for again every two seconds until it is idle (its run then appears in
     * the runs list). Every request carries the header no other site's page can send.
     */
    var liveWatched = {};
    var liveTimer = null;

    function liveRequest(method, url) {
        return fetch(url, {method: method, credentials: 'same-origin', headers: {'X-Vantage-Board': '1'}})
            .then(function (r) {
                return r.json().then(function (body) {
                    if (!r.ok) {
                        throw new Error(body && body.error ? body.error : 'HTTP ' + r.status);
                    }
                    return body;
                });
            });
    }

    function liveNote(text, isError) {
        var note = document.getElementById('live-note');
        note.textContent = text;
        note.className = isError ? 'note error' : 'note';
    }

    var LIVE_STATES = {idle: 'idle', waiting: 'waiting for a step', recording: 'recording',
        unavailable: 'no on-demand profiler'};

    /** Draws a platform's row (a new one, or the one it has) for its state. */
    function liveRow(p) {
        var body = document.querySelector('#live-platforms tbody');
        var tr = body.querySelector('tr[data-pid="' + p.pid + '"]');
        if (!tr) {
            tr = el('tr', {'data-pid': String(p.pid)});
            tr.appendChild(el('td', {'class': 'pid'}, p.pid));
            var what = el('td', {'class': 'platform'}, p.distribution + ' · ' + p.mode);
            what.appendChild(el('div', {'class': 'command', title: p.command}, p.command));
            tr.appendChild(what);
            tr.appendChild(el('td', {'class': 'capture'}));
            var cell = el('td', {'class': 'actions'});
            ['start', 'stop'].forEach(function (action) {
                var b = el('button', {type: 'button', 'data-action': action}, action === 'start' ? 'Start' : 'Stop');
                b.addEventListener('click', function () { livePost(p.pid, action); });
                cell.appendChild(b);
            });
            tr.appendChild(cell);
            body.appendChild(tr);
        }
        tr.setAttribute('data-capture', p.capture);
        tr.querySelector('td.capture').textContent = LIVE_STATES[p.capture] || p.capture;
        tr.querySelector('button[data-action="start"]').disabled = p.capture !== 'idle';
        tr.querySelector('button[data-action="stop"]').disabled = p.capture !== 'waiting' && p.capture !== 'recording';
        var busy = p.capture === 'waiting' || p.capture === 'recording';
        if (busy) {
            liveWatched[p.pid] = true;
        } else if (liveWatched[p.pid]) {
            delete liveWatched[p.pid];
        }
        liveWatch();
    }

    /** Asks again, every two seconds, for the platforms whose capture waits or records. */
    function liveWatch() {
        if (liveTimer !== null || Object.keys(liveWatched).length === 0) {
            return;
        }
        liveTimer = setTimeout(function () {
            liveTimer = null;
            Object.keys(liveWatched).forEach(function (pid) {
                liveRequest('GET', '/api/platforms/' + pid).then(function (p) {
                    var was = document.querySelector('#live-platforms tr[data-pid="' + pid + '"]');
                    var before = was ? was.getAttribute('data-capture') : null;
                    liveRow(p);
                    if (before === 'recording' && p.capture === 'idle') {
                        liveNote(pid + ': the capture ended; its run appears in the runs list');
                    } else if (before === 'waiting' && p.capture === 'recording') {
                        liveNote(pid + ': recording');
                    }
                }).catch(function (e) {
                    delete liveWatched[pid];
                    var tr = document.querySelector('#live-platforms tr[data-pid="' + pid + '"]');
                    if (tr) {
                        tr.setAttribute('data-capture', 'gone');
                        tr.querySelector('td.capture').textContent = 'gone';
                        tr.querySelectorAll('button').forEach(function (b) { b.disabled = true; });
                    }
                    liveNote(pid + ': ' + e.message, true);
                });
            });
        }, 2000);
    }

    /** The window the page asks for: seconds=N, steps=N, or nothing (until stopped). */
    function liveWindow() {
        var kind = document.getElementById('live-window').value;
        var n = document.getElementById('live-amount').value.trim();
        return kind === 'until-stopped' ? '' : '?' + kind + '=' + encodeURIComponent(n);
    }

    function livePost(pid, action) {
        liveNote(action === 'start' ? 'Starting a capture on ' + pid + '…' : 'Stopping the capture on ' + pid + '…');
        liveRequest('POST', '/api/platforms/' + pid + '/' + action + (action === 'start' ? liveWindow() : ''))
            .then(function (body) {
                liveNote(pid + ': ' + body.answer);
                root.setAttribute('data-board-live', action + ':' + pid);
            }).catch(function (e) {
                liveNote(pid + ': ' + e.message, true);
                root.setAttribute('data-board-live', action + ':' + pid + ':error');
            }).then(function () {
                return liveRequest('GET', '/api/platforms/' + pid).then(liveRow, function () {});
            });
    }

    function findPlatforms() {
        var body = document.querySelector('#live-platforms tbody');
        liveNote('Looking for platforms…');
        liveRequest('GET', '/api/platforms').then(function (answer) {
            clear(body);
            liveWatched = {};
            answer.platforms.forEach(liveRow);
            liveNote(answer.available ? answer.platforms.length + ' platforms; captures go to ' + answer.captures
                : answer.why, !answer.available);
            root.setAttribute('data-board-platforms', String(answer.platforms.length));
        }).catch(function (e) {
            liveNote('The platforms could not be listed: ' + e.message, true);
        });
    }

    function liveSetUp() {
        var amount = document.getElementById('live-amount');
        document.getElementById('live-find').addEventListener('click', findPlatforms);
        document.getElementById('live-window').addEventListener('change', function (e) {
            amount.disabled = e.target.value === 'until-stopped';
        });
    }

    var UNITS = {
        TEXT: function (v) { return v === null || v === undefined ? '' : String(v); },
        NUMBER: function (v) {
            return v === null || v === undefined || v === '' ? '' : typeof v !== 'number' ? String(v)
                : Number.isInteger(v) ? String(v) : v.toFixed(3);
        },
        NANOS: function (v) { return typeof v === 'number' ? (v / 1000).toFixed(3) : ''; },
        BYTES: function (v) { return typeof v === 'number' ? (v / 1048576).toFixed(3) + ' MiB' : ''; },
        FRACTION: function (v) { return typeof v === 'number' ? (100 * v).toFixed(2) + ' %' : ''; }
    };

    function isNumeric(unit) { return unit !== 'TEXT'; }

    /** A table that sorts on a header's click (again: the other way) and keeps the rows a filter matches. */
    function table(parent, id, columns, rows) {
        var input = el('input', {type: 'search', 'class': 'filter', placeholder: 'Filter rows',
            'aria-label': 'Filter ' + id});
        var t = el('table', {id: 'table-' + id});
        var head = el('tr');
        var body = el('tbody');
        var state = {col: -1, desc: true};
        columns.forEach(function (c, i) {
            var th = el('th', {'class': isNumeric(c.unit) ? 'num' : '', 'aria-sort': 'none'},
                c.name + (c.unit === 'NANOS' ? ' (µs)' : ''));
            th.addEventListener('click', function () {
                state.desc = state.col === i ? !state.desc : isNumeric(c.unit);
                state.col = i;
                fill();
            });
            head.appendChild(th);
        });
        var thead = el('thead');
        thead.appendChild(head);
        t.appendChild(thead);
        t.appendChild(body);
        function fill() {
            var needle = input.value.toLowerCase();
            var shown = rows.filter(function (r) {
                return needle === '' || r.some(function (v) { return String(v).toLowerCase().indexOf(needle) >= 0; });
            });
            if (state.col >= 0) {
                var i = state.col;
                var numeric = isNumeric(columns[i].unit);
                shown.sort(function (a, b) {
                    var x = a[i], y = b[i];
                    var r = numeric && typeof x === 'number' && typeof y === 'number' ? x - y
                        : String(x === null ? '' : x).localeCompare(String(y === null ? '' : y));
                    return state.desc ? -r : r;
                });
            }
            clear(body);
            shown.forEach(function (r) {
                var tr = el('tr');
                columns.forEach(function (c, j) {
                    tr.appendChild(el('td', {'class': isNumeric(c.unit) ? 'num' : ''}, UNITS[c.unit](r[j])));
                });
                body.appendChild(tr);
            });
            Array.prototype.forEach.call(head.children, function (th, j) {
                th.setAttribute('aria-sort', j === state.col ? (state.desc ? 'descending' : 'ascending') : 'none');
            });
        }
        input.addEventListener('input', fill);
        fill();
        parent.appendChild(input);
        var wrap = el('div', {'class': 'table-wrap'});
        wrap.appendChild(t);
        parent.appendChild(wrap);
    }

    function chart(parent, id, option) {
        var div = el('div', {id: 'chart-' + id, 'class': 'chart'});
        parent.appendChild(div);
        var c = echarts.init(div, null, {renderer: 'svg'});
        option.animation = false;
        c.setOption(option);
        charts.push({chart: c, div: div});
    }

    var KIND_COLOURS = {cpu_op: '#5470c6', user_annotation: '#91cc75', kernel: '#ee6666', gpu_memcpy: '#fac858',
        gpu_memset: '#73c0de', privateuse1_runtime: '#9a60b4', cuda_runtime: '#9a60b4', gc: '#3ba272'};

    /** Slices on lanes: an ECharts custom series, zoomed and panned on the time axis. */
    function timeline(parent, id, t) {
        var div = el('div', {id: 'timeline-' + id, 'class': 'chart timeline'});
        div.style.height = Math.max(200, 60 + 22 * t.lanes.length) + 'px';
        parent.appendChild(div);
        var c = echarts.init(div, null, {renderer: 'svg'});
        var end = t.slices.reduce(function (m, s) { return Math.max(m, s[2]); }, 0);
        c.setOption({
            animation: false,
            tooltip: {formatter: function (p) {
                var s = p.value;
                return echarts.format.encodeHTML(s[3]) + '<br>' + ((s[2] - s[1]) / 1000).toFixed(3) + ' µs at '
                    + (s[1] / 1000).toFixed(3) + ' µs';
            }},
            grid: {left: 260, right: 30, top: 10, bottom: 50},
            xAxis: {type: 'value', min: 0, max: end, axisLabel: {formatter: function (v) {
                return (v / 1e6).toFixed(3) + ' ms';
            }}},
            yAxis: {type: 'category', data: t.lanes, inverse: true, axisLabel: {width: 250, overflow: 'truncate'}},
            dataZoom: [{type: 'inside', xAxisIndex: 0, filterMode: 'weakFilter'},
                {type: 'slider', xAxisIndex: 0, height: 16, bottom: 10, filterMode: 'weakFilter'}],
            series: [{type: 'custom', encode: {x: [1, 2], y: 0}, data: t.slices,
                renderItem: function (params, api) {
                    var lane = api.value(0);
                    var a = api.coord([api.value(1), lane]);
                    var b = api.coord([api.value(2), lane]);
                    var h = api.size([0, 1])[1] * 0.7;
                    var rect = echarts.graphic.clipRectByRect({x: a[0], y: a[1] - h / 2,
                        width: Math.max(1, b[0] - a[0]), height: h}, {x: params.coordSys.x, y: params.coordSys.y,
                        width: params.coordSys.width, height: params.coordSys.height});
                    return rect && {type: 'rect', shape: rect, style: {fill: KIND_COLOURS[t.slices[params.dataIndex][4]]
                        || '#888'}};
                }}]
        });
        charts.push({chart: c, div: div});
    }

    function choice(parent, id, ch, onChoose) {
        var label = el('label', {'for': 'choice-' + id}, ch.parameter + ': ');
        var select = el('select', {id: 'choice-' + id});
        ch.options.forEach(function (o) { select.appendChild(el('option', {value: o[0]}, o[1])); });
        select.value = ch.selected;
        select.addEventListener('change', function () { onChoose(ch.parameter, select.value); });
        if (STATIC) {
            // another choice needs the trace again: the board's, not this page's
            select.disabled = true;
            select.title = 'Open the trace with vantage board to choose another';
        }
        parent.appendChild(label);
        parent.appendChild(select);
    }

    function disposeCharts() {
        charts.forEach(function (c) { c.chart.dispose(); });
        charts = [];
    }

    function renderSections(body, onChoose) {
        disposeCharts();
        clear(viewEl);
        body.sections.forEach(function (s) {
            var sec = el('section', {id: 'section-' + s.id, 'class': 'view-section'});
            sec.appendChild(el('h3', {}, s.title));
            if (s.note) {
                sec.appendChild(el('p', {'class': 'note'}, s.note));
            }
            viewEl.appendChild(sec);
            if (s.choice && onChoose) {
                choice(sec, s.id, s.choice, onChoose);
            }
            if (s.chart) {
                chart(sec, s.id, s.chart);
            }
            if (s.timeline) {
                timeline(sec, s.id, s.timeline);
            }
            if (s.columns.length > 0) {
                if (s.totalRows > s.rows.length) {
                    sec.appendChild(el('p', {'class': 'note'}, 'The first ' + s.rows.length + ' of ' + s.totalRows
                        + ' rows.'));
                }
                table(sec, s.id, s.columns, s.rows);
            }
        });
        if (body.sections.length === 0) {
            viewEl.appendChild(el('p', {'class': 'note'}, 'Nothing to show for this run.'));
        }
    }

    function showError(message) {
        disposeCharts();
        clear(viewEl);
        viewEl.appendChild(el('p', {'class': 'error', role: 'alert'}, message));
    }

    /** The body the open view was drawn from, to tell whether asking again changed anything. */
    var drawnBody = null;

    function openView(runId, viewId, params, again) {
        var mine = ++generation;
        var query = Object.keys(params || {}).map(function (k) {
            return encodeURIComponent(k) + '=' + encodeURIComponent(params[k]);
        }).join('&');
        current.view = viewId;
        Array.prototype.forEach.call(tabs.children, function (b) {
            b.setAttribute('aria-selected', b.getAttribute('data-view') === viewId ? 'true' : 'false');
        });
        try {
            history.replaceState(null, '', '#run=' + encodeURIComponent(runId) + '&view=' + encodeURIComponent(viewId));
        } catch (e) {
            // a page opened from a file may not rewrite its address: the view is shown all the same
        }
        if (!again) {
            root.removeAttribute('data-board-view');
        }
        get('/api/runs/' + encodeURIComponent(runId) + '/views/' + encodeURIComponent(viewId)
                + (query ? '?' + query : '')).then(function (body) {
            if (mine !== generation) {
                return;
            }
            var text = JSON.stringify(body.sections);
            if (!again || text !== drawnBody) {
                drawnBody = text;
                renderSections(body, function (name, value) {
                    var next = {};
                    Object.keys(params || {}).forEach(function (k) { next[k] = params[k]; });
                    next[name] = value;
                    openView(runId, viewId, next);
                });
            }
            // some of the run's analyses are still being computed: ask again until they are done
            if (body.pending) {
                root.setAttribute('data-board-pending', 'true');
                setTimeout(function () {
                    if (mine === generation) {
                        openView(runId, viewId, params, true);
                    }
                }, 2000);
            } else {
                root.removeAttribute('data-board-pending');
            }
            root.setAttribute('data-board-charts', String(charts.length));
            root.setAttribute('data-board-view', runId + '/' + viewId);
        }).catch(function (e) {
            if (mine === generation) {
                showError(e.message);
                root.setAttribute('data-board-view', runId + '/' + viewId + ':error');
            }
        });
    }

    /** The other runs, to compare the open one with. */
    var compareKey = null;

    function fillCompare() {
        var select = document.getElementById('compare-with');
        var key = current.run + '|' + runs.filter(function (r) { return !r.problem; })
            .map(function (r) { return r.id + '=' + r.name; }).join('|');
        if (key === compareKey) {
            // the same runs: the list stays as it is, with what the user may be choosing in it
            return;
        }
        compareKey = key;
        var chosen = select.value;
        clear(select);
        select.appendChild(el('option', {value: ''}, '(another run)'));
        runs.forEach(function (r) {
            if (r.id !== current.run && !r.problem) {
                select.appendChild(el('option', {value: r.id}, r.name));
            }
        });
        select.value = chosen;
    }

    function openCompare(a, b) {
        var mine = ++generation;
        Array.prototype.forEach.call(tabs.children, function (t) { t.setAttribute('aria-selected', 'false'); });
        root.removeAttribute('data-board-view');
        root.removeAttribute('data-board-pending');
        disposeCharts();
        clear(viewEl);
        viewEl.appendChild(el('p', {'class': 'note'}, 'Reading both runs…'));
        get('/api/compare?a=' + encodeURIComponent(a) + '&b=' + encodeURIComponent(b)).then(function (body) {
            if (mine !== generation) {
                return;
            }
            renderSections(body, null);
            root.setAttribute('data-board-charts', String(charts.length));
            root.setAttribute('data-board-view', 'compare:' + a + '/' + b);
        }).catch(function (e) {
            if (mine === generation) {
                showError(e.message);
                root.setAttribute('data-board-view', 'compare:' + a + '/' + b + ':error');
            }
        });
    }

    function openRun(runId, wantedView) {
        var mine = ++generation;
        current.run = runId;
        var run = runs.filter(function (r) { return r.id === runId; })[0];
        document.getElementById('empty').hidden = true;
        document.getElementById('run-head').hidden = false;
        document.getElementById('run-name').textContent = run ? run.name : runId;
        document.getElementById('download').setAttribute('href', '/api/runs/' + encodeURIComponent(runId) + '/file');
        Array.prototype.forEach.call(runsBody.children, function (tr) {
            tr.setAttribute('aria-selected', tr.getAttribute('data-run') === runId ? 'true' : 'false');
        });
        document.getElementById('compare-with').value = '';
        fillCompare();
        clear(tabs);
        disposeCharts();
        clear(viewEl);
        viewEl.appendChild(el('p', {'class': 'note'}, 'Reading the trace…'));
        root.removeAttribute('data-board-view');
        get('/api/runs/' + encodeURIComponent(runId) + '/views').then(function (body) {
            if (mine !== generation) {
                return;
            }
            body.views.forEach(function (v) {
                var b = el('button', {type: 'button', role: 'tab', 'data-view': v.id, 'aria-selected': 'false'},
                    v.title);
                b.addEventListener('click', function () { openView(runId, v.id); });
                tabs.appendChild(b);
            });
            var ids = body.views.map(function (v) { return v.id; });
            if (ids.length === 0) {
                showError('No view applies to this run.');
                return;
            }
            openView(runId, ids.indexOf(wantedView) >= 0 ? wantedView : ids[0]);
        }).catch(function (e) {
            if (mine === generation) {
                showError(e.message);
                root.setAttribute('data-board-view', runId + '/:error');
            }
        });
    }

    function tagText(tags) {
        return Object.keys(tags).map(function (k) { return k + '=' + tags[k]; }).join(' ');
    }

    var drawnKey = null;

    function drawRuns() {
        var needle = filter.value.toLowerCase();
        var key = needle + '|' + current.run + '|' + JSON.stringify(runs);
        if (key === drawnKey) {
            // nothing changed since the last refresh: the rows stay, and the user's pointer on them
            return;
        }
        drawnKey = key;
        clear(runsBody);
        runs.forEach(function (r) {
            var text = (r.name + ' ' + tagText(r.tags) + ' ' + r.status).toLowerCase();
            if (needle !== '' && text.indexOf(needle) < 0) {
                return;
            }
            var tr = el('tr', {'data-run': r.id, 'aria-selected': r.id === current.run ? 'true' : 'false'});
            tr.appendChild(el('td', {}, r.name));
            var tagCell = el('td');
            Object.keys(r.tags).forEach(function (k) { tagCell.appendChild(el('span', {'class': 'tag'}, k + '=' + r.tags[k])); });
            tr.appendChild(tagCell);
            var status = el('td', {'class': r.status === 'error' ? 'status-error' : ''}, r.status);
            if (r.problem) {
                status.setAttribute('title', r.problem);
                status.appendChild(el('div', {'class': 'note'}, r.problem));
            }
            tr.appendChild(status);
            tr.appendChild(el('td', {}, r.modifiedMillis ? new Date(r.modifiedMillis).toISOString()
                .replace('T', ' ').slice(0, 19) : ''));
            tr.addEventListener('click', function () { openRun(r.id, current.view); });
            runsBody.appendChild(tr);
        });
        root.setAttribute('data-board-runs', String(runs.length));
    }

    function refresh() {
        return get('/api/runs').then(function (body) {
            document.getElementById('logdir').textContent = body.logdir;
            runs = body.runs;
            document.getElementById('runs-note').textContent = runs.length + ' runs' + (body.truncated
                ? ' (the first of more)' : '');
            drawRuns();
            if (current.run) {
                fillCompare();
            }
            root.setAttribute('data-board', 'ready');
        }).catch(function (e) {
            document.getElementById('runs-note').textContent = 'The runs could not be listed: ' + e.message;
        });
    }

    filter.addEventListener('input', drawRuns);
    if (!STATIC) {
        liveSetUp();
    }
    document.getElementById('compare-with').addEventListener('change', function (e) {
        if (e.target.value && current.run) {
            openCompare(current.run, e.target.value);
        }
    });
    window.addEventListener('resize', function () { charts.forEach(function (c) { c.chart.resize(); }); });
    if (!STATIC && location.search.indexOf('token=') >= 0) {
        // the cookie holds the token now: keep it out of the address bar, history and screenshots
        history.replaceState(null, '', '/' + location.hash);
    }
    var wanted = {};
    location.hash.replace(/^#/, '').split('&').forEach(function (kv) {
        var i = kv.indexOf('=');
        if (i > 0) {
            wanted[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1));
        }
    });
    refresh().then(function () {
        if (wanted.run) {
            openRun(wanted.run, wanted.view);
        } else if (STATIC && runs.length > 0) {
            openRun(runs[0].id);
        }
    });
    if (!STATIC) {
        setInterval(refresh, 2000);
    }
}());
