package dev.vantage.trace.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.HdrHistogram.Histogram;

import dev.vantage.profiler.api.EventAverage;
import dev.vantage.profiler.api.KeyAverages;
import dev.vantage.profiler.api.SortKey;
import dev.vantage.profiler.api.TableOptions;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.TraceDevice;
import dev.vantage.trace.engine.store.Column;
import dev.vantage.trace.engine.store.Details;
import dev.vantage.trace.engine.store.HostRows;

/**
 * Events grouped by key in one pass over a trace's {@link Analysis}: by name, and optionally by input shapes and
 * the innermost frames of the calling stack. Device work groups by kernel name, with device time and no host
 * time, and by input shape too when the work names its shapes in its {@code Input Dims} argument; a device's memory
 * reports are no rows. Percentiles of the host duration come from an HdrHistogram per key (three significant
 * digits).
 */
final class KeyAveragesImpl implements KeyAverages {

    /** The {@code args} key of device work whose value is its input shapes in torch's text ({@code [[8, 16], []]}). */
    static final String DEVICE_INPUT_DIMS = "Input Dims";

    private final List<EventAverage> rows;
    private final EventAverage total;
    private final long selfCpuTotal;
    private final long selfDeviceTotal;
    private final String deviceType;
    private final long droppedHost;
    private final long droppedDevice;
    private final Analysis analysis;
    private final boolean byShape;
    private final int stackN;
    /** Whether memory was profiled, so the table shows memory columns. */
    final boolean memoryProfiled;
    /** The device type of device memory seen, or the empty string. */
    final String memoryDeviceType;
    /** The emulated devices that took part, as {@code npu:0}, for the table footer. */
    final List<String> emulatedDevices;
    /** The devices that took part and describe themselves ({@code label}), as {@code ort:0: <label>}, for the footer. */
    final List<String> labelledDevices;

    private long gcPauses;
    private long gcNanos;

    private KeyAveragesImpl(List<EventAverage> rows, String deviceType, long deviceWorkNanos, long droppedHost,
            long droppedDevice, Analysis analysis, boolean byShape, int stackN) {
        this.rows = List.copyOf(rows);
        this.deviceType = deviceType;
        this.droppedHost = droppedHost;
        this.droppedDevice = droppedDevice;
        this.analysis = analysis;
        this.byShape = byShape;
        this.stackN = stackN;
        this.memoryProfiled = analysis != null && analysis.data.memoryProfiled();
        this.memoryDeviceType = analysis == null ? "" : analysis.memoryDeviceType;
        this.emulatedDevices = analysis == null ? List.of() : analysis.data.devices().stream().filter(d -> d.emulated())
                .map(d -> d.type() + ":" + d.index()).toList();
        this.labelledDevices = analysis == null ? List.of() : analysis.data.devices().stream()
                .filter(d -> !d.properties().getOrDefault(TraceDevice.LABEL, "").isEmpty())
                .map(d -> d.type() + ":" + d.index() + ": " + d.properties().get(TraceDevice.LABEL)).toList();
        long self = 0;
        Acc all = new Acc("Total", "", List.of(), EventKind.USER_ANNOTATION);
        for (EventAverage r : rows) {
            self += r.selfCpuNanos();
            all.count += r.count();
            all.cpuTotal += r.cpuTotalNanos();
            all.selfCpu += r.selfCpuNanos();
            all.deviceTotal += r.deviceTotalNanos();
            all.selfDevice += r.selfDeviceNanos();
            all.flops += r.flops();
            all.max = Math.max(all.max, r.maxNanos());
            all.addMemory(r.cpuMemoryBytes(), r.selfCpuMemoryBytes(), r.deviceMemoryBytes(),
                    r.selfDeviceMemoryBytes());
        }
        this.selfCpuTotal = self;
        // as torch, the device total sums the device work itself, not the ops that launched it
        this.selfDeviceTotal = deviceWorkNanos;
        this.total = all.toAverage();
    }

    /** Rows given directly, for tests of the table layout. */
    static KeyAveragesImpl of(List<EventAverage> rows, String deviceType, long deviceWorkNanos) {
        return new KeyAveragesImpl(rows, deviceType, deviceWorkNanos, 0, 0, null, false, 0);
    }

    static KeyAveragesImpl of(Analysis a, boolean byShape, int stackN, boolean topLevelOnly) {
        if (stackN < 0) {
            throw new IllegalArgumentException("groupByStackN must be 0 or more, not " + stackN);
        }
        Map<Object, Acc> groups = new LinkedHashMap<>();
        for (int k = 0; k < a.steps.size(); k++) {
            StepSpan s = a.steps.get(k);
            long duration = s.endNanos() - s.startNanos();
            Acc step = groups.computeIfAbsent(s.name(), n -> new Acc((String) n, "", List.of(),
                    EventKind.USER_ANNOTATION));
            step.add(duration, a.stepSelfNanos[k], a.stepDeviceNanos[k], 0, 0);
            step.addMemory(a.stepCpuMemory[k], a.stepSelfCpuMemory[k], a.stepDeviceMemory[k],
                    a.stepSelfDeviceMemory[k]);
        }
        for (int k = 0; k < a.data.threads().size(); k++) {
            HostRows s = a.rows(k);
            Column parents = a.parent[k];
            for (int i = 0; i < s.size(); i++) {
                if (topLevelOnly && parents.getInt(i) != -1 || Analysis.isMemory(s.kind(i))) {
                    continue;
                }
                String name = a.data.name(s.name(i));
                Object key = name;
                String shapes = "";
                List<String> stack = List.of();
                if (byShape || stackN > 0) {
                    Details.Read d = a.details(k, i);
                    shapes = byShape ? shapesText(d.shapes()) : "";
                    if (stackN > 0 && d.stackId() >= 0) {
                        List<String> frames = a.data.stack(d.stackId());
                        stack = frames.subList(0, Math.min(stackN, frames.size()));
                    }
                    key = List.of(name, shapes, stack);
                }
                Acc acc = groups.get(key);
                if (acc == null) {
                    acc = new Acc(name, shapes, stack, EventKind.ofId(s.kind(i)));
                    groups.put(key, acc);
                }
                acc.add(a.end(s, i) - s.start(i), a.selfNanos[k].getLong(i),
                        a.totalDevice == null ? 0 : a.totalDevice[k][i],
                        a.selfDevice == null ? 0 : a.selfDevice[k][i],
                        a.flops == null ? 0 : a.flops[k][i]);
                acc.addMemory(a.totalCpuMemory(k, i), a.selfCpuMemory(k, i), a.totalDeviceMemory(k, i),
                        a.selfDeviceMemory(k, i));
            }
        }
        long deviceWork = 0;
        long gcPauses = 0;
        long gcNanos = 0;
        DeviceRows dev = a.device;
        for (int x = 0; x < dev.size(); x++) {
            EventKind kind = dev.kind(x);
            long duration = dev.duration(x);
            if (kind == EventKind.GC) {
                // a JVM pause stops every thread, it is no op: it stays on the trace's JVM row, not in the table
                gcPauses++;
                gcNanos += duration;
                continue;
            }
            if (topLevelOnly || Analysis.isMemory(kind.id())) {
                // a device's memory report is an instant, no row, as the host's: it counts in the memory columns
                continue;
            }
            String name = dev.name(x);
            // device work that says what it read (ONNX Runtime's nodes) groups by it, as host ops by their shapes
            String shapes = byShape ? dev.args(x).getOrDefault(DEVICE_INPUT_DIMS, "") : "";
            Object key = byShape || stackN > 0 ? List.of(name, shapes, List.of()) : name;
            Acc acc = groups.get(key);
            if (acc == null) {
                acc = new Acc(name, shapes, List.of(), kind);
                groups.put(key, acc);
            }
            if (!kind.isDeviceWork()) {
                // a runtime call is host time, not device work
                acc.add(duration, duration, 0, 0, 0);
            } else {
                acc.addDevice(duration);
                deviceWork += duration;
            }
        }
        List<EventAverage> rows = new ArrayList<>(groups.size());
        for (Acc acc : groups.values()) {
            rows.add(acc.toAverage());
        }
        KeyAveragesImpl averages = new KeyAveragesImpl(rows, a.deviceType, deviceWork, a.droppedHost,
                a.data.droppedDeviceRecords(), a, byShape, stackN);
        averages.gcPauses = gcPauses;
        averages.gcNanos = gcNanos;
        return averages;
    }

    /** torch's {@code str(input_shapes)}: {@code [[8, 16], [], [32]]}. */
    static String shapesText(long[][] shapes) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < shapes.length; i++) {
            sb.append(i == 0 ? "[" : ", [");
            for (int d = 0; d < shapes[i].length; d++) {
                sb.append(d == 0 ? "" : ", ").append(shapes[i][d]);
            }
            sb.append(']');
        }
        return sb.append(']').toString();
    }

    @Override
    public List<EventAverage> rows() {
        return rows;
    }

    @Override
    public EventAverage totalAverage() {
        return total;
    }

    @Override
    public long selfCpuTotalNanos() {
        return selfCpuTotal;
    }

    @Override
    public String deviceType() {
        return deviceType;
    }

    long selfDeviceTotalNanos() {
        return selfDeviceTotal;
    }

    /** Returns how many JVM garbage-collection pauses the window holds; they are not rows of the table. */
    long gcPauses() {
        return gcPauses;
    }

    /** Returns the time of those pauses, in nanoseconds. */
    long gcNanos() {
        return gcNanos;
    }

    long droppedHostEvents() {
        return droppedHost;
    }

    long droppedDeviceRecords() {
        return droppedDevice;
    }

    @Override
    public String table(SortKey sortBy, int rowLimit) {
        return table(new TableOptions(sortBy, rowLimit, false, false));
    }

    @Override
    public String table(TableOptions options) {
        Objects.requireNonNull(options, "options");
        if (options.topLevelOnly() && analysis != null) {
            return TableFormatter.format(of(analysis, byShape, stackN, true), options);
        }
        return TableFormatter.format(this, options);
    }

    /** Only its bucket arithmetic is used, which reads and never records: shared by every thread. */
    private static final Histogram BUCKETS = new Histogram(3);

    /**
     * Returns what {@link Histogram#getValueAtPercentile} of a three-digit histogram holding the first {@code n}
     * values of {@code sorted} gives, without filling one: the value of that rank, raised to the top of its bucket.
     */
    static long percentile(long[] sorted, int n, double percentile) {
        double p = Math.min(Math.max(Math.nextAfter(percentile, Double.NEGATIVE_INFINITY), 0), 100);
        long rank = Math.max(1, (long) Math.ceil(p * n / 100.0));
        return BUCKETS.highestEquivalentValue(sorted[(int) rank - 1]);
    }

    /** Sums for one key. */
    private static final class Acc {
        static final int MAX_SAMPLES = 8192;

        final String name;
        /** The kind of the key's first event. */
        final EventKind kind;
        final String shapes;
        final List<String> stack;
        long count;
        long cpuTotal;
        long selfCpu;
        long deviceTotal;
        long selfDevice;
        long flops;
        long max;
        long cpuMemory;
        long selfCpuMemory;
        long deviceMemory;
        long selfDeviceMemory;
        /**
         * The durations of a key seen at most {@link #MAX_SAMPLES} times (a step annotation, a rare op): an
         * auto-resizing histogram of three significant digits holds some 100 KiB for durations of milliseconds,
         * which for one {@code ProfilerStep#N} key per step would grow with the run.
         */
        long[] samples;
        int sampleCount;
        /** The durations of a key seen more often. */
        Histogram histogram;

        Acc(String name, String shapes, List<String> stack, EventKind kind) {
            this.kind = kind;
            this.name = name;
            this.shapes = shapes;
            this.stack = stack;
        }

        void add(long duration, long self, long device, long ownDevice, long eventFlops) {
            count++;
            cpuTotal += duration;
            selfCpu += self;
            deviceTotal += device;
            selfDevice += ownDevice;
            flops += eventFlops;
            max = Math.max(max, duration);
            record(duration);
        }

        void addMemory(long cpu, long selfCpu, long device, long selfDevice) {
            cpuMemory += cpu;
            selfCpuMemory += selfCpu;
            deviceMemory += device;
            selfDeviceMemory += selfDevice;
        }

        void addDevice(long duration) {
            count++;
            deviceTotal += duration;
            selfDevice += duration;
            max = Math.max(max, duration);
            record(duration);
        }

        private void record(long duration) {
            long value = Math.max(0, duration);
            if (histogram != null) {
                histogram.recordValue(value);
                return;
            }
            if (samples == null) {
                samples = new long[4];
            } else if (sampleCount == samples.length) {
                if (sampleCount == MAX_SAMPLES) {
                    // a key seen this often keeps a histogram, whose size does not grow with the count
                    histogram = new Histogram(3);
                    for (long v : samples) {
                        histogram.recordValue(v);
                    }
                    histogram.recordValue(value);
                    samples = null;
                    return;
                }
                samples = Arrays.copyOf(samples, Math.min(MAX_SAMPLES, sampleCount * 2));
            }
            samples[sampleCount++] = value;
        }

        EventAverage toAverage() {
            long p50 = 0;
            long p99 = 0;
            if (histogram != null) {
                p50 = Math.min(max, histogram.getValueAtPercentile(50));
                p99 = Math.min(max, histogram.getValueAtPercentile(99));
            } else if (samples != null) {
                Arrays.sort(samples, 0, sampleCount);
                p50 = Math.min(max, percentile(samples, sampleCount, 50));
                p99 = Math.min(max, percentile(samples, sampleCount, 99));
            }
            return new Average(kind, name, count, cpuTotal, selfCpu, deviceTotal, selfDevice, shapes, stack, flops,
                    p50, p99, max, cpuMemory, selfCpuMemory, deviceMemory, selfDeviceMemory);
        }
    }
}
