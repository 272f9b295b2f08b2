package dev.vantage.trace.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.IntFunction;

import dev.vantage.profiler.trace.TraceDevice;

/**
 * The raw material of one trace, as the recorder froze it or a reader filled it, before the engine derived anything:
 * each thread's rows, the step spans, the device activities, the names, and the facts of the window. The one input of
 * {@link Traces#analyse}. Immutable once built; built with {@link #builder()}.
 *
 * <p>Times are on the trace's own clock (the recorder's {@code System.nanoTime()}, a file's time since its base);
 * {@link #epochOffsetNanos()} turns them into nanoseconds since the Unix epoch. A host op is named by its handle
 * ({@link #handle}): its thread's position in {@link #threads()} and its row.
 */
public final class TraceData {

    /** Bits of a handle that hold the row; the bits above hold the thread's position. */
    public static final int SLOT_BITS = 40;
    public static final long SLOT_MASK = (1L << SLOT_BITS) - 1;

    private final String processName;
    private final long processId;
    private final long startNanos;
    private final long stopNanos;
    private final long epochOffsetNanos;
    private final IntFunction<String> names;
    private final List<HostThread> threads;
    private final List<StepSpan> steps;
    private final long[] stepStarts;
    private final DeviceRows device;
    private final List<TraceDevice> devices;
    private final long droppedDeviceRecords;
    private final Map<String, String> metadata;
    private final IntFunction<List<String>> stacks;
    private final Map<Long, Map<String, String>> hostArgs;
    private final boolean recordShapes;
    private final boolean withFlops;
    private final boolean memoryProfiled;
    private final TraceSource source;
    private final List<DeviceSync> syncs;

    private TraceData(Builder b) {
        this.processName = b.processName;
        this.processId = b.processId;
        this.startNanos = b.startNanos;
        this.stopNanos = b.stopNanos;
        this.epochOffsetNanos = b.epochOffsetNanos;
        this.names = Objects.requireNonNull(b.names, "names");
        this.threads = List.copyOf(b.threads);
        this.steps = List.copyOf(b.steps);
        this.stepStarts = b.stepStarts;
        this.device = b.device != null ? b.device : new DeviceRows(dev.vantage.trace.engine.store.BlockSource.HEAP);
        List<TraceDevice> sorted = new ArrayList<>(b.devices);
        sorted.sort(java.util.Comparator.comparing(TraceDevice::type).thenComparingInt(TraceDevice::index));
        this.devices = List.copyOf(sorted);
        this.droppedDeviceRecords = b.droppedDeviceRecords;
        this.metadata = java.util.Collections.unmodifiableMap(new TreeMap<>(b.metadata));
        this.stacks = b.stacks;
        this.hostArgs = b.hostArgs;
        this.recordShapes = b.recordShapes;
        this.withFlops = b.withFlops;
        this.memoryProfiled = b.memoryProfiled;
        this.source = b.source;
        this.syncs = List.copyOf(b.syncs);
    }

    /** Returns a new builder. */
    public static Builder builder() {
        return new Builder();
    }

    /** Returns the handle of a host event: its thread's position and its row. */
    public static long handle(int thread, int row) {
        return ((long) thread << SLOT_BITS) | row;
    }

    /** Returns the thread position of a handle. */
    public static int threadOf(long handle) {
        return (int) (handle >>> SLOT_BITS);
    }

    /** Returns the row of a handle. */
    public static long rowOf(long handle) {
        return handle & SLOT_MASK;
    }

    public String processName() {
        return processName;
    }

    public long processId() {
        return processId;
    }

    public long startNanos() {
        return startNanos;
    }

    public long stopNanos() {
        return stopNanos;
    }

    public long epochOffsetNanos() {
        return epochOffsetNanos;
    }

    /** Returns the name of a name id (an event's name, a dtype's, a memory event's device type). */
    public String name(int id) {
        return names.apply(id);
    }

    public IntFunction<String> names() {
        return names;
    }

    public List<HostThread> threads() {
        return threads;
    }

    public List<StepSpan> steps() {
        return steps;
    }

    /**
     * Returns when each step began, indexed by step number, for telling which step any time falls in (also steps
     * outside the window); the steps' own starts when the source gave none.
     */
    public long[] stepStarts() {
        if (stepStarts != null) {
            return stepStarts;
        }
        return steps.stream().mapToLong(StepSpan::startNanos).toArray();
    }

    public DeviceRows device() {
        return device;
    }

    public List<TraceDevice> devices() {
        return devices;
    }

    public long droppedDeviceRecords() {
        return droppedDeviceRecords;
    }

    public Map<String, String> metadata() {
        return metadata;
    }

    /** Returns the frames of a stack id, innermost first; empty when stacks were not recorded. */
    public List<String> stack(int id) {
        return stacks == null || id < 0 ? List.of() : stacks.apply(id);
    }

    /** Returns whether the trace has stacks. */
    public boolean hasStacks() {
        return stacks != null;
    }

    /** Returns the arguments of the host events that carry some, by handle. */
    public Map<Long, Map<String, String>> hostArgs() {
        return hostArgs;
    }

    public boolean recordShapes() {
        return recordShapes;
    }

    public boolean withFlops() {
        return withFlops;
    }

    /** Returns whether memory was recorded, so that tables show the memory columns. */
    public boolean memoryProfiled() {
        return memoryProfiled;
    }

    /** Returns where the trace came from and what its reader met. */
    public TraceSource source() {
        return source;
    }

    /** The synchronisations the devices recorded, in the order read. */
    public List<DeviceSync> syncs() {
        return syncs;
    }

    /** Builds a {@link TraceData}. Not thread-safe. */
    public static final class Builder {
        private final List<DeviceSync> syncs = new ArrayList<>();
        private String processName = "";
        private long processId = -1;
        private long startNanos;
        private long stopNanos;
        private long epochOffsetNanos;
        private IntFunction<String> names;
        private final List<HostThread> threads = new ArrayList<>();
        private final List<StepSpan> steps = new ArrayList<>();
        private long[] stepStarts;
        private DeviceRows device;
        private final List<TraceDevice> devices = new ArrayList<>();
        private long droppedDeviceRecords;
        private final Map<String, String> metadata = new TreeMap<>();
        private IntFunction<List<String>> stacks;
        private Map<Long, Map<String, String>> hostArgs = Map.of();
        private boolean recordShapes;
        private boolean withFlops;
        private boolean memoryProfiled;
        private TraceSource source = TraceSource.RECORDED;

        private Builder() {
        }

        public Builder process(String name, long pid) {
            this.processName = Objects.requireNonNull(name, "name");
            this.processId = pid;
            return this;
        }

        /** The window and the offset that turns its clock into epoch nanoseconds. */
        public Builder window(long start, long stop, long epochOffset) {
            this.startNanos = start;
            this.stopNanos = stop;
            this.epochOffsetNanos = epochOffset;
            return this;
        }

        public Builder names(IntFunction<String> table) {
            this.names = table;
            return this;
        }

        public Builder thread(HostThread thread) {
            threads.add(Objects.requireNonNull(thread, "thread"));
            return this;
        }

        public Builder step(StepSpan step) {
            steps.add(Objects.requireNonNull(step, "step"));
            return this;
        }

        public Builder stepStarts(long[] starts) {
            this.stepStarts = starts;
            return this;
        }

        public Builder device(DeviceRows rows) {
            this.device = rows;
            return this;
        }

        public Builder deviceInfo(TraceDevice d) {
            devices.add(Objects.requireNonNull(d, "d"));
            return this;
        }

        public Builder droppedDeviceRecords(long n) {
            this.droppedDeviceRecords += n;
            return this;
        }

        public Builder metadata(Map<String, String> m) {
            metadata.putAll(m);
            return this;
        }

        public Builder metadata(String key, String value) {
            metadata.put(key, value);
            return this;
        }

        public Builder stacks(IntFunction<List<String>> table) {
            this.stacks = table;
            return this;
        }

        public Builder hostArgs(Map<Long, Map<String, String>> args) {
            this.hostArgs = Objects.requireNonNull(args, "args");
            return this;
        }

        public Builder recordShapes(boolean on) {
            this.recordShapes = on;
            return this;
        }

        public Builder withFlops(boolean on) {
            this.withFlops = on;
            return this;
        }

        public Builder memoryProfiled(boolean on) {
            this.memoryProfiled = on;
            return this;
        }

        public Builder source(TraceSource s) {
            this.source = Objects.requireNonNull(s, "s");
            return this;
        }

        /** Adds a synchronisation the device recorded. */
        public Builder sync(DeviceSync s) {
            syncs.add(s);
            return this;
        }

        public TraceData build() {
            return new TraceData(this);
        }
    }
}
