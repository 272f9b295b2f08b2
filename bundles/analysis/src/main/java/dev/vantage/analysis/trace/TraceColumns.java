package dev.vantage.analysis.trace;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a trace reader fills, and all that the analysis, the report, compare and convert read of a trace: the seam
 * between an input format and the views. A reader of another format (Perfetto's protobuf, say) fills the same
 * columns through the same methods and gets every view; nothing downstream knows which format the trace was.
 *
 * <p>A reader adds host events per thread ({@link #thread}, {@link EventColumns#add}), device work
 * ({@link #device}), {@code [memory]} events ({@link #memory}), steps ({@link #step}), and the facts of the trace
 * (rank, world size, base time, device types, thread and process names, metadata). It counts every event by its
 * category as written ({@link #count}), the categories it does not know included. Linking device work to the
 * operator that launched it is not the reader's job: it keeps each event's {@code External id} and
 * {@code correlation} as written, and {@link Linkage} resolves them, whichever way the writer linked them.
 *
 * <p>Times are nanoseconds relative to {@link #baseNanos}. Not thread-safe; one reader fills one instance.
 */
final class TraceColumns implements java.io.Closeable {

    /** One {@code ProfilerStep#N} span on a thread; times relative to the base time. */
    record Step(long number, long start, long duration, int thread) {
    }

    /** Every {@code [memory]} event, as columns. */
    static final class Memory {
        final LongColumn time;
        final LongColumn bytes;
        final LongColumn address;
        final LongColumn allocated;
        final LongColumn reserved;
        /** c10 device type number and index, and the thread, packed: type << 48 | (index + 1) << 32 | thread. */
        final LongColumn where;

        Memory(ColumnStore store) {
            time = new LongColumn(store);
            bytes = new LongColumn(store);
            address = new LongColumn(store);
            allocated = new LongColumn(store);
            reserved = new LongColumn(store);
            where = new LongColumn(store);
        }

        void add(long t, int deviceType, int deviceIndex, int thread, long b, long addr, long a, long r) {
            time.add(t);
            bytes.add(b);
            address.add(addr);
            allocated.add(a);
            reserved.add(r);
            where.add(((long) (deviceType & 0xffff) << 48) | ((long) ((deviceIndex + 1) & 0xffff) << 32)
                    | (thread & 0xffffffffL));
        }

        int size() {
            return time.size();
        }

        int deviceType(int i) {
            return (short) (where.get(i) >>> 48);
        }

        int deviceIndex(int i) {
            return (int) ((where.get(i) >>> 32) & 0xffff) - 1;
        }

        int thread(int i) {
            return (int) where.get(i);
        }
    }

    /** The launch facts of the kernels of one name and one launch geometry (the kernel view's rows). */
    static final class KernelLaunches {
        final int name;
        final String geometry;
        long count;
        long nanos;
        /** Sums weighted by duration, and the duration they cover (kernels that had the value). */
        double occupancyNanos;
        long occupancyWeight;
        double blocksPerSmNanos;
        double warpsPerSmNanos;
        long smWeight;

        KernelLaunches(int name, String geometry) {
            this.name = name;
            this.geometry = geometry;
        }
    }

    /** Where the columns of a big trace live; {@link #close()} deletes its file. */
    final ColumnStore store = new ColumnStore();
    final EventArgs args = new EventArgs();
    final List<EventColumns> threads = new ArrayList<>();
    /** Per thread: {@code pid/tid} as written. */
    final List<String> threadKeys = new ArrayList<>();
    /** Per thread: the numeric tid, or -1 when the trace's tid is not a number. */
    final LongList threadIds = new LongList();
    private final Map<String, Integer> threadIndex = new HashMap<>();
    /** {@code thread_name} metadata, by {@code pid/tid}. */
    final Map<String, String> threadNames = new HashMap<>();
    final EventColumns device = new EventColumns(store);
    final List<Step> steps = new ArrayList<>();
    final Memory memory = new Memory(store);
    final Interner names = new Interner();
    final Interner shapes = new Interner();
    final Interner categories = new Interner();
    /** Events by category as written ({@code ""} for none), in the order first seen. */
    final Map<String, Long> categoryCounts = new LinkedHashMap<>();
    /** Complete events of categories the reader has no meaning for: kept as host events, and counted. */
    long unknownEvents;
    /** The launch point of device work that names no runtime call (the legacy format's flows): id to thread, time. */
    final LongLongMap flowThread = new LongLongMap(store);
    final LongLongMap flowTime = new LongLongMap(store);
    /** Launch facts per kernel name and geometry, in the order first seen. */
    final Map<String, KernelLaunches> kernelLaunches = new LinkedHashMap<>();
    /** Communication device work: its row, collective name (interned in {@link #names}, or -1) and bytes (or -1). */
    final IntList commRows = new IntList();
    final IntList commNames = new IntList();
    final LongList commBytes = new LongList();
    /** Host collective operations' message bytes, by thread and row: {@code thread << 32 | row}. */
    final LongLongMap hostCommBytes = new LongLongMap(store);
    /** {@code Trace iteration} of host events: iteration to first start and last end (for traces without steps). */
    final TreeMap<Long, long[]> iterations = new TreeMap<>();
    final List<String> deviceTypes = new ArrayList<>();
    /** Top-level scalar keys of the file, as text ({@code schemaVersion}, {@code traceName}, ...). */
    final Map<String, String> metadata = new LinkedHashMap<>();
    /** The format read: {@code kineto}, {@code legacy} (torch's exporter without Kineto) or {@code perfetto}. */
    String format = "kineto";
    boolean sawEvents;
    /** Whether the file was read through {@link JsonRepairStream}: it was not JSON. */
    boolean repairedPass;
    long baseNanos;
    int rank = -1;
    int worldSize = 1;
    String backend;
    String processName;
    long processId = -1;
    long events;

    TraceColumns() {
        shapes.intern(""); // id 0: no shapes recorded
    }

    /** Deletes the temporary file of the columns, if a big trace made one. */
    @Override
    public void close() {
        store.close();
    }

    /** Returns the index of the thread of a {@code pid/tid} key, adding it when new. */
    int thread(String key, long numericTid) {
        Integer i = threadIndex.get(key);
        if (i == null) {
            i = threads.size();
            threads.add(new EventColumns(store));
            threadKeys.add(key);
            threadIds.add(numericTid);
            threadIndex.put(key, i);
        }
        return i;
    }

    /** Counts one event of a category. */
    void count(String category) {
        categoryCounts.merge(category, 1L, Long::sum);
    }

    void step(long number, long start, long duration, int thread) {
        steps.add(new Step(number, start, duration, thread));
    }

    int name(String name) {
        return names.intern(name);
    }

    int shapes(String text) {
        return shapes.intern(text);
    }

    /** Adds a kernel's launch facts to its row of the kernel view. */
    void kernelLaunch(int name, EventArgs a, long duration) {
        String geometry = a.hasGeometry() ? "grid " + triple(a.grid) + " block " + triple(a.block)
                + (a.registers >= 0 ? " regs " + a.registers : "") + (a.sharedMemory >= 0 ? " smem " + a.sharedMemory : "")
                : "";
        KernelLaunches k = kernelLaunches.computeIfAbsent(name + "\u0000" + geometry,
                g -> new KernelLaunches(name, geometry));
        k.count++;
        k.nanos += duration;
        if (!Double.isNaN(a.occupancy)) {
            k.occupancyNanos += a.occupancy * duration;
            k.occupancyWeight += duration;
        }
        if (!Double.isNaN(a.blocksPerSm) && !Double.isNaN(a.warpsPerSm)) {
            k.blocksPerSmNanos += a.blocksPerSm * duration;
            k.warpsPerSmNanos += a.warpsPerSm * duration;
            k.smWeight += duration;
        }
    }

    private static String triple(long[] v) {
        return "[" + v[0] + "," + v[1] + "," + v[2] + "]";
    }

    /** Widens a host event's span of its {@code Trace iteration}. */
    void iteration(long iteration, long start, long end) {
        long[] span = iterations.get(iteration);
        if (span == null) {
            iterations.put(iteration, new long[] {start, end});
        } else {
            span[0] = Math.min(span[0], start);
            span[1] = Math.max(span[1], end);
        }
    }
}
