package dev.vantage.analysis.trace;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.Trace;
import dev.vantage.profiler.trace.TraceDevice;
import dev.vantage.profiler.trace.TraceStep;
import dev.vantage.profiler.trace.TraceThread;

/**
 * A trace file read into {@link TraceColumns}, seen as the trace model every exporter writes ({@link Trace}), so
 * that {@code vantage convert} hands a PyTorch trace to the Parquet exporter's own table code: one schema, one
 * step rule, one pass. Host events keep their nesting, self and device times ({@link TraceAnalysis}), device work
 * its launching operator ({@link Linkage}) and that operator's start (so the exporter's {@code StepRule} places it as
 * it places a Vantage trace's). What the model has no kind for is written as the nearest kind: device runtime and
 * driver calls of any vendor as {@link EventKind#RUNTIME}, Python functions, step spans and categories the reader
 * does not know as {@link EventKind#USER_ANNOTATION} (docs/parquet-schema.md, "Converted traces").
 *
 * <p>Immutable once read; each {@link #events()} is a new cursor.
 */
public final class ColumnsTrace implements Trace, AutoCloseable {

    private final TraceColumns t;
    private final TraceAnalysis analysis;
    private final TraceAnalysis.HostDetails details;
    private final List<TraceStep> steps;
    private final long[] threadOffset;
    private final long deviceOffset;
    private final long memoryOffset;
    private final long start;
    private final long end;
    private final List<TraceThread> threads = new ArrayList<>();
    private final String deviceType;
    private Map<String, String> metadata = Map.of();

    private ColumnsTrace(TraceColumns t) {
        this.t = t;
        this.analysis = new TraceAnalysis(t, true);
        analysis.summary("");
        this.details = analysis.details();
        List<TraceStep> relative = analysis.traceSteps();
        List<TraceStep> epoch = new ArrayList<>();
        for (TraceStep s : relative) {
            epoch.add(new TraceStep(s.number(), t.baseNanos + s.startEpochNanos(), t.baseNanos + s.endEpochNanos(),
                    t.baseNanos + s.deviceEndEpochNanos()));
        }
        this.steps = List.copyOf(epoch);
        threadOffset = new long[t.threads.size()];
        long next = 1;
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (int th = 0; th < t.threads.size(); th++) {
            threadOffset[th] = next;
            EventColumns c = t.threads.get(th);
            next += c.size;
            for (int i = 0; i < c.size; i++) {
                min = Math.min(min, c.start.get(i));
                max = Math.max(max, c.start.get(i) + c.duration.get(i));
            }
            String key = t.threadKeys.get(th);
            threads.add(new TraceThread(idOfThread(th), t.threadNames.getOrDefault(key, "thread " + key), 0));
        }
        deviceOffset = next;
        next += t.device.size;
        memoryOffset = next;
        for (int i = 0; i < t.device.size; i++) {
            min = Math.min(min, t.device.start.get(i));
            max = Math.max(max, t.device.start.get(i) + t.device.duration.get(i));
        }
        this.start = t.baseNanos + (min == Long.MAX_VALUE ? 0 : min);
        this.end = t.baseNanos + (max == Long.MIN_VALUE ? 0 : max);
        this.deviceType = t.deviceTypes.stream().filter(d -> !d.equals("cpu")).findFirst().orElse("cuda");
    }

    /**
     * Reads a trace file as {@link TraceReader#read(Path, TraceRepairs)} does.
     *
     * @param repairs counts what the file needed repaired and skipped; a strict one refuses a damaged file
     * @throws IOException naming the file; {@link DamagedTraceException} for a damaged one, with the byte offset
     */
    public static ColumnsTrace read(Path file, TraceRepairs repairs) throws IOException {
        TraceColumns columns = TraceReader.columns(file, repairs);
        try {
            ColumnsTrace trace = new ColumnsTrace(columns);
            Overlaps.account(file, columns, trace.analysis.overlaps(), repairs);
            return trace;
        } catch (IOException | RuntimeException e) {
            columns.close();
            throw e;
        }
    }

    /** Deletes the temporary file of a big trace's columns; the trace is not read after. */
    @Override
    public void close() {
        t.close();
    }

    /** Returns the rank {@code distributedInfo} gives, or -1. */
    public int rank() {
        return t.rank;
    }

    /** Returns the world size {@code distributedInfo} gives, or -1 when it gives none. */
    public int worldSize() {
        return t.rank < 0 ? -1 : t.worldSize;
    }

    /** Returns the format read: {@code kineto}, {@code legacy} or {@code perfetto}. */
    public String format() {
        return t.format;
    }

    /** Sets the metadata the exporter reads the job, run, rank and world size from. */
    public ColumnsTrace withIdentity(String jobId, String runId, int rank, int worldSize) {
        Map<String, String> m = new TreeMap<>();
        m.put("vantage.job_id", jobId);
        m.put("vantage.run_id", runId);
        m.put("rank", Integer.toString(rank));
        m.put("world_size", Integer.toString(worldSize));
        this.metadata = java.util.Collections.unmodifiableMap(m);
        return this;
    }

    private long idOfThread(int th) {
        long id = t.threadIds.get(th);
        return id >= 0 ? id : th;
    }

    @Override
    public long processId() {
        return Math.max(0, t.processId);
    }

    @Override
    public String processName() {
        return t.processName == null ? "python" : t.processName;
    }

    @Override
    public long startEpochNanos() {
        return start;
    }

    @Override
    public long endEpochNanos() {
        return end;
    }

    @Override
    public List<TraceThread> threads() {
        return List.copyOf(threads);
    }

    @Override
    public List<TraceDevice> devices() {
        java.util.TreeSet<Integer> indexes = new java.util.TreeSet<>();
        for (int i = 0; i < t.device.size; i++) {
            indexes.add(t.device.detail.get(i));
        }
        List<TraceDevice> out = new ArrayList<>();
        for (int index : indexes) {
            out.add(new TraceDevice(deviceType, Math.max(0, index), false, Map.of()));
        }
        return out;
    }

    @Override
    public long eventCount() {
        return memoryOffset - 1 + t.memory.size();
    }

    @Override
    public long droppedEvents() {
        return 0;
    }

    @Override
    public Map<String, String> metadata() {
        return metadata;
    }

    @Override
    public List<TraceStep> steps() {
        return steps;
    }

    @Override
    public EventCursor events() {
        return new Cursor();
    }

    private static String memoryDevice(int type) {
        return switch (type) {
            case 0 -> "cpu";
            case 1 -> "cuda";
            case 13 -> "mps";
            default -> "device" + type;
        };
    }

    /** Host threads' events in row order, then device work, then memory events. */
    private final class Cursor implements EventCursor {
        private int thread;
        private int row = -1;
        /** 0 host, 1 device, 2 memory. */
        private int part;
        private EventColumns c = t.threads.isEmpty() ? null : t.threads.get(0);

        @Override
        public boolean next() {
            row++;
            while (true) {
                if (part == 0) {
                    if (c != null && row < c.size) {
                        return true;
                    }
                    if (thread + 1 < t.threads.size()) {
                        thread++;
                        c = t.threads.get(thread);
                        row = 0;
                        continue;
                    }
                    part = 1;
                    c = t.device;
                    row = 0;
                    continue;
                }
                if (part == 1) {
                    if (row < t.device.size) {
                        return true;
                    }
                    part = 2;
                    row = 0;
                    continue;
                }
                return row < t.memory.size();
            }
        }

        private boolean host() {
            return part == 0;
        }

        @Override
        public String name() {
            return part == 2 ? "[memory]" : t.names.get(c.name.get(row));
        }

        @Override
        public EventKind kind() {
            if (part == 2) {
                return EventKind.MEMORY;
            }
            return switch (c.kind.get(row)) {
                case EventColumns.OP -> EventKind.CPU_OP;
                case EventColumns.RUNTIME, EventColumns.DRIVER -> EventKind.RUNTIME;
                case EventColumns.KERNEL, EventColumns.COMMUNICATION -> EventKind.KERNEL;
                case EventColumns.MEMCPY -> EventKind.GPU_MEMCPY;
                case EventColumns.MEMSET -> EventKind.GPU_MEMSET;
                default -> EventKind.USER_ANNOTATION;
            };
        }

        @Override
        public long threadId() {
            if (part == 0) {
                return idOfThread(thread);
            }
            if (part == 2) {
                return idOfThread(t.memory.thread(row));
            }
            long op = analysis.linkage().opOfDevice.get(row);
            return op == Linkage.NONE ? -1 : idOfThread(Linkage.thread(op));
        }

        @Override
        public long startEpochNanos() {
            return t.baseNanos + (part == 2 ? t.memory.time.get(row) : c.start.get(row));
        }

        @Override
        public long durationNanos() {
            return part == 2 ? 0 : c.duration.get(row);
        }

        @Override
        public long eventId() {
            return part == 0 ? threadOffset[thread] + row : part == 1 ? deviceOffset + row : memoryOffset + row;
        }

        @Override
        public long parentId() {
            if (part != 0) {
                return -1;
            }
            int p = (int) details.parent[thread].get(row);
            return p < 0 ? -1 : threadOffset[thread] + p;
        }

        @Override
        public long selfDurationNanos() {
            return part == 0 ? details.self[thread].get(row) : 0;
        }

        @Override
        public long deviceSelfNanos() {
            return part == 0 ? details.deviceSelf[thread].get(row) : part == 1 ? c.duration.get(row) : 0;
        }

        @Override
        public long deviceTotalNanos() {
            return part == 0 ? details.deviceTotal[thread].get(row) : part == 1 ? c.duration.get(row) : 0;
        }

        private long opEventId(long op) {
            return op == Linkage.NONE ? -1 : threadOffset[Linkage.thread(op)] + Linkage.row(op);
        }

        @Override
        public long correlationId() {
            if (part == 1) {
                return opEventId(analysis.linkage().opOfDevice.get(row));
            }
            if (part == 2) {
                return -1;
            }
            byte k = c.kind.get(row);
            if (k == EventColumns.RUNTIME || k == EventColumns.DRIVER) {
                return opEventId(analysis.linkage().opOfRuntime.get(Linkage.id(thread, row), Linkage.NONE));
            }
            return eventId();
        }

        @Override
        public long launchEpochNanos() {
            if (part != 1) {
                return -1;
            }
            long s = analysis.launchStart(row);
            return s < 0 ? -1 : t.baseNanos + s;
        }

        @Override
        public long flowId() {
            if (part == 2) {
                return -1;
            }
            long corr = c.correlation.get(row);
            return corr >= 0 && (part == 1 || c.kind.get(row) == EventColumns.RUNTIME || c.kind.get(row) == EventColumns.DRIVER)
                    ? corr : -1;
        }

        @Override
        public boolean isCommunication() {
            return part == 1 && c.kind.get(row) == EventColumns.COMMUNICATION;
        }

        @Override
        public String deviceType() {
            return part == 1 ? deviceType : part == 2 ? memoryDevice(t.memory.deviceType(row)) : "";
        }

        @Override
        public int deviceIndex() {
            return part == 1 ? c.detail.get(row) : part == 2 ? t.memory.deviceIndex(row) : -1;
        }

        @Override
        public long streamId() {
            return part == 1 ? c.sequence.get(row) : -1;
        }

        @Override
        public long sequenceNumber() {
            return part == 0 ? c.sequence.get(row) : -1;
        }

        @Override
        public long forwardThreadId() {
            return -1;
        }

        @Override
        public int inputCount() {
            return 0;
        }

        @Override
        public long[] inputShape(int index) {
            throw new IndexOutOfBoundsException(index);
        }

        @Override
        public String inputType(int index) {
            throw new IndexOutOfBoundsException(index);
        }

        @Override
        public List<String> stack() {
            return List.of();
        }

        @Override
        public long flops() {
            return 0;
        }

        @Override
        public long memoryBytes() {
            return part == 2 ? t.memory.bytes.get(row) : 0;
        }

        @Override
        public long memoryAddress() {
            return part == 2 ? t.memory.address.get(row) : 0;
        }

        @Override
        public long memoryTotalAllocated() {
            return part == 2 ? t.memory.allocated.get(row) : 0;
        }

        @Override
        public long memoryTotalReserved() {
            return part == 2 ? t.memory.reserved.get(row) : 0;
        }
    }
}
