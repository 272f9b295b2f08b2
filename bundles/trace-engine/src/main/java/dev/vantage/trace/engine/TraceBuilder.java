package dev.vantage.trace.engine;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

import dev.vantage.profiler.memory.MemoryCategory;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.StepRule;
import dev.vantage.profiler.trace.TraceDevice;
import dev.vantage.trace.engine.store.BlockSource;
import dev.vantage.trace.engine.store.Column;
import dev.vantage.trace.engine.store.Details;
import dev.vantage.trace.engine.store.HostRows;
import dev.vantage.trace.engine.store.Interner;
import dev.vantage.trace.engine.store.LongLongMap;

/**
 * Makes a {@link TraceData} from events given in any order, as a file holds them: what every reader fills, and what
 * a test or a tool that writes a trace of its own starts from. Host events are given per thread with their times;
 * {@link #build} nests each thread's events by time (a longer event before a shorter one starting with it, else in
 * the order given, as the TensorBoard plugin nests them), turns {@code ProfilerStep#N} spans into steps, and links
 * device work and runtime calls to the op that launched them, whichever way the trace links them. Kineto has written
 * two linkages:
 * <ul>
 * <li>since about 2023 (and in torch 1.8/1.9 traces, as {@code external id}): device work and its runtime call carry
 *     the launching op's {@code External id}; the runtime call and the work share {@code correlation};</li>
 * <li>in 2021-2022 traces: the work's and the runtime call's {@code External id} is their {@code correlation}; the
 *     op is the innermost op on the runtime call's thread whose span holds the call's start.</li>
 * </ul>
 * The rule here gives both the same answer: device work goes to its runtime call by {@code correlation}, and a runtime
 * call to the op its {@code External id} names when that id is an op's and differs from the call's correlation (it
 * can run on another thread, as a collective's), else to the innermost op holding its start on its thread. Device work
 * without a runtime call goes to the op its own {@code External id} names (again when that is not its correlation);
 * the legacy format's work to the innermost op holding its flow's start ({@link #flowStart}).
 *
 * <p>Times are nanoseconds on the trace's clock (for a file, since its base time). Not thread-safe; one builder
 * makes one trace.
 */
public final class TraceBuilder {

    /** The staging code of a {@code ProfilerStep#N} span, beside the {@link EventKind} ids of host events. */
    private static final int STEP = 15;
    /** The staging code of a driver call: linked like a runtime call, but not the op's time (its runtime call is). */
    private static final int DRIVER = 14;
    private static final long NONE = Long.MIN_VALUE;

    /** One thread's events as given, before they are nested. */
    private final class Staged {
        final long tid;
        final String key;
        String name;
        final Column start = Column.longs(source);
        final Column duration = Column.longs(source);
        final Column nameId = Column.ints(source);
        final Column kind = Column.bytes(source);
        final Column external = Column.longs(source);
        final Column correlation = Column.longs(source);
        final Column detailsAt = Column.longs(source);
        final Column arena = Column.longs(source);
        /** Arguments of events that keep theirs, by staging position. */
        final Map<Integer, Map<String, String>> args = new HashMap<>();
        /** Legacy flows that start on this thread: pairs of time and device row, answered when nesting. */
        final List<long[]> flowQueries = new ArrayList<>();
        int size;

        Staged(long tid, String key) {
            this.tid = tid;
            this.key = key;
        }

        int add(long s, long d, int n, int k, long ext, long corr) {
            start.append(s);
            duration.append(Math.max(0, d));
            nameId.append(n);
            kind.append(k);
            external.append(ext);
            correlation.append(corr);
            detailsAt.append(-1);
            return size++;
        }
    }

    private final BlockSource source;
    private final Interner names = new Interner();
    private final List<Staged> threads = new ArrayList<>();
    private final Map<String, Integer> threadIndex = new HashMap<>();
    private final DeviceRows device;
    /** Per device row: its External id and correlation as given, for linking at build. */
    private final Column deviceExternal;
    private final Column deviceCorrelation;
    private final List<StepSpan> givenSteps = new ArrayList<>();
    private final List<DeviceSync> syncs = new ArrayList<>();
    private final TreeMap<Long, long[]> iterations = new TreeMap<>();
    private final LongLongMap flowThread = new LongLongMap();
    private final LongLongMap flowTime = new LongLongMap();
    private final Map<String, String> metadata = new TreeMap<>();
    private final Map<Long, Map<String, String>> hostArgs = new HashMap<>();
    private final List<TraceDevice> devices = new ArrayList<>();
    private String runtimeDeviceType = "cuda";
    private String processName = "";
    private long processId = -1;
    private long epochOffset;
    /** Events that start inside an open one on their thread and end beyond it and the format's rounding. */
    private long overlaps;
    /** How far an event may end after the one it starts in before that is an overlap: the legacy format's unit. */
    private static final long ROUNDING_NANOS = 1000;
    private boolean recordShapes;
    // the call stacks the trace gave its ops, each once
    private final Map<String, Integer> stackIds = new HashMap<>();
    private final List<List<String>> stackFrames = new ArrayList<>();
    private TraceSource traceSource = TraceSource.RECORDED;

    /** A builder whose columns come from {@code source}: a {@link dev.vantage.trace.engine.store.SpillFile} for files. */
    public TraceBuilder(BlockSource source) {
        this.source = Objects.requireNonNull(source, "source");
        this.device = new DeviceRows(source);
        this.deviceExternal = Column.longs(source);
        this.deviceCorrelation = Column.longs(source);
        names.intern("");
    }

    /** Returns the id of a name (an event's, a dtype's, a device type's), adding it when new. */
    public int name(String name) {
        return names.intern(name);
    }

    /** Returns the table the builder's names are interned in, for readers that intern from a parser's buffer. */
    public Interner names() {
        return names;
    }

    /**
     * Returns the position of a thread, adding it when new.
     *
     * @param key what identifies the thread in the source ({@code pid/tid} as written)
     * @param tid the thread's numeric id, or -1 when the source's is not a number (its position is used then)
     */
    public int thread(String key, long tid) {
        Integer i = threadIndex.get(key);
        if (i == null) {
            i = threads.size();
            threads.add(new Staged(tid >= 0 ? tid : i, key));
            threadIndex.put(key, i);
        }
        return i;
    }

    /** Names a thread. */
    public void threadName(int thread, String name) {
        threads.get(thread).name = name;
    }

    /** Returns the number of threads so far. */
    public int threadCount() {
        return threads.size();
    }

    /**
     * Adds a host event: an op ({@link EventKind#CPU_OP}) or an annotation ({@link EventKind#USER_ANNOTATION}); a
     * {@code ProfilerStep#N} of either becomes a step; or a runtime call ({@link EventKind#RUNTIME}), which becomes a device
     * activity linked to its op.
     *
     * @param externalId the event's {@code External id}, or {@link Long#MIN_VALUE}
     * @param correlation a runtime call's {@code correlation}, or {@link Long#MIN_VALUE}
     * @param sequence the autograd sequence number, or -1
     * @param shapes the inputs' dims (null when not recorded) and {@code types} their dtype names
     * @return the event's staging position on its thread
     */
    public int host(int thread, long startNanos, long durationNanos, int nameId, EventKind kind, long externalId,
            long correlation, long sequence, long forwardThread, long[][] shapes, String[] types) {
        return host(thread, startNanos, durationNanos, nameId, kind, externalId, correlation, sequence, forwardThread,
                shapes, types, null);
    }

    /**
     * Adds a host event, with the call stack the trace gave it ({@code Call stack}: frames separated by ';', the
     * innermost first), or null.
     */
    public int host(int thread, long startNanos, long durationNanos, int nameId, EventKind kind, long externalId,
            long correlation, long sequence, long forwardThread, long[][] shapes, String[] types, String callStack) {
        Staged t = threads.get(thread);
        String text = names.get(nameId);
        // a step is a step whatever its category (2021 traces and the legacy array wrote them as operators)
        long step = kind != EventKind.RUNTIME ? StepRule.stepNumber(text) : -1;
        int code = step >= 0 ? STEP : kind.id();
        int row = t.add(startNanos, durationNanos, nameId, code, externalId, correlation);
        int stack = callStack == null || callStack.isEmpty() ? -1
                : stackIds.computeIfAbsent(callStack, frames -> {
                    stackFrames.add(List.of(frames.split(";")));
                    return stackFrames.size() - 1;
                });
        if (code != STEP && code != EventKind.RUNTIME.id()
                && (sequence >= 0 || forwardThread >= 0 || shapes != null || stack >= 0)) {
            int[] typeIds = null;
            if (shapes != null) {
                recordShapes = true;
                typeIds = new int[shapes.length];
                for (int i = 0; i < shapes.length; i++) {
                    typeIds[i] = names.intern(types != null && i < types.length && types[i] != null ? types[i] : "");
                }
            }
            t.detailsAt.set(row, t.arena.size());
            if (!Details.write(t.arena, row, sequence, forwardThread, stack, shapes, typeIds)) {
                throw new OutOfMemoryError("no block left for a trace's details");
            }
        }
        return row;
    }

    /** Marks a runtime call {@link #host} added as a driver call ({@code cuLaunchKernel}). */
    public void driverCall(int thread, int row) {
        threads.get(thread).kind.set(row, DRIVER);
    }

    /** Keeps the arguments of a host event {@link #host} added (a collective's message size and group). */
    public void hostArgs(int thread, int row, Map<String, String> args) {
        threads.get(thread).args.put(row, Map.copyOf(args));
    }

    /**
     * Adds an allocation, free ({@link EventKind#MEMORY}) or failed allocation ({@link EventKind#OUT_OF_MEMORY}):
     * an instant on the allocating thread, whose op is the one open at its time.
     *
     * @param category the torch name of what the memory holds ({@code PARAMETER}, ...), or null when not known
     */
    public void memory(int thread, EventKind kind, long atNanos, String deviceType, int deviceIndex, long address,
            long bytes, long totalAllocated, long totalReserved, String category) {
        Staged t = threads.get(thread);
        int name = names.intern(kind == EventKind.OUT_OF_MEMORY ? "[OutOfMemory]" : "[memory]");
        int row = t.add(atNanos, 0, name, kind.id(), NONE, NONE);
        t.detailsAt.set(row, t.arena.size());
        Details.writeMemory(t.arena, row, names.intern(deviceType), deviceIndex, address, bytes, totalAllocated,
                totalReserved, category(category).ordinal());
    }

    /**
     * Adds device work ({@link EventKind#KERNEL}, {@link EventKind#GPU_MEMCPY}, {@link EventKind#GPU_MEMSET}) or a
     * JVM pause ({@link EventKind#GC}, on the thread given as {@code launchThreadId}).
     *
     * @param externalId the launching op's {@code External id}, or {@link Long#MIN_VALUE}
     * @param correlation the runtime's {@code correlation} (the legacy format's flow id), or {@link Long#MIN_VALUE}
     * @param args the device's facts about the work, written back as the trace gave them
     * @return its device row
     */
    public int device(EventKind kind, String activityName, String deviceType, int deviceIndex, long stream,
            long startNanos, long durationNanos, long launchThreadId, long externalId, long correlation,
            Map<String, String> args) {
        int row = device.add(kind, activityName, deviceType, deviceIndex, stream, startNanos,
                startNanos + Math.max(0, durationNanos), launchThreadId, correlation == NONE ? -1 : correlation, -1,
                args);
        deviceExternal.append(externalId);
        deviceCorrelation.append(correlation);
        return row;
    }

    /** The category of a torch name, {@link MemoryCategory#UNKNOWN} for one it does not know. */
    private static MemoryCategory category(String torchName) {
        if (torchName != null) {
            for (MemoryCategory c : MemoryCategory.values()) {
                if (c.torchName().equals(torchName)) {
                    return c;
                }
            }
        }
        return MemoryCategory.UNKNOWN;
    }

    /** Adds a synchronisation the device recorded ({@code cuda_sync}). */
    public void sync(DeviceSync s) {
        syncs.add(s);
    }

    /** Records where a legacy launch flow starts: on a thread at a time, inside the op that launched the work. */
    public void flowStart(long flowId, int thread, long atNanos) {
        flowThread.put(flowId, thread);
        flowTime.put(flowId, atNanos);
    }

    /** Widens a {@code Trace iteration}'s span: the steps of a trace that has no {@code ProfilerStep#N}. */
    public void iteration(long iteration, long startNanos, long endNanos) {
        long[] span = iterations.get(iteration);
        if (span == null) {
            iterations.put(iteration, new long[] {startNanos, endNanos});
        } else {
            span[0] = Math.min(span[0], startNanos);
            span[1] = Math.max(span[1], endNanos);
        }
    }

    /** Names the process. */
    public void process(String name, long pid) {
        this.processName = name;
        this.processId = pid;
    }

    /** Sets the offset that turns the trace's clock into epoch nanoseconds (a file's base time). */
    public void epochOffset(long nanos) {
        this.epochOffset = nanos;
    }

    /** Sets the device type runtime calls launch work on ({@code cuda} unless the trace says otherwise). */
    public void runtimeDeviceType(String type) {
        this.runtimeDeviceType = type;
    }

    /** Says where the trace came from and what its reader met. */
    public void source(TraceSource s) {
        this.traceSource = s;
    }

    /** Sets the device type of a device row, once a reader knows it (a file may name its devices last). */
    public void deviceType(int row, String type) {
        device.setDeviceType(row, type);
    }

    public void metadata(String key, String value) {
        metadata.put(key, value);
    }

    /** Describes a device the trace's work ran on; devices that did work without one are described plainly. */
    public void deviceInfo(TraceDevice d) {
        devices.add(d);
    }

    /**
     * Returns how many host events {@link #build} found starting inside an open event of their thread and ending
     * more than a microsecond after it (pytorch#174555): each is nested as that event's sibling, as torch's own tree
     * nests it.
     */
    public long overlaps() {
        return overlaps;
    }

    /**
     * Nests every thread's events, links device work to ops, and returns the trace's raw material. The builder is
     * not used after.
     */
    public TraceData build() {
        TraceData.Builder b = TraceData.builder().names(names::get).metadata(metadata).recordShapes(recordShapes)
                .source(traceSource).hostArgs(hostArgs);
        syncs.forEach(b::sync);
        if (!stackFrames.isEmpty()) {
            b.stacks(stackFrames::get);
        }
        LongLongMap opByExternal = new LongLongMap(source);
        List<long[]> runtimeCalls = new ArrayList<>();
        Map<Integer, Long> flowOp = new HashMap<>();
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        List<StepSpan> steps = new ArrayList<>(givenSteps);
        addFlowQueries();
        for (int k = 0; k < threads.size(); k++) {
            Staged t = threads.get(k);
            for (int i = 0; i < t.size; i++) {
                min = Math.min(min, t.start.getLong(i));
                max = Math.max(max, t.start.getLong(i) + t.duration.getLong(i));
            }
            b.thread(nest(k, t, opByExternal, runtimeCalls, flowOp, steps));
        }
        // runtime calls, once every op's External id is known: a collective's may run on another thread
        LongLongMap opOfCorrelation = new LongLongMap(source);
        for (long[] call : runtimeCalls) {
            Staged t = threads.get((int) call[0]);
            int i = (int) call[1];
            long ext = t.external.getLong(i);
            long corr = t.correlation.getLong(i);
            long op = ext != NONE && ext != corr ? opByExternal.get(ext, -1) : -1;
            if (op < 0) {
                op = call[2];
            }
            // a driver call launches work for its op, but its time is its runtime call's, not the op's own
            boolean driver = t.kind.get(i) == DRIVER;
            device.add(EventKind.RUNTIME, names.get(t.nameId.getInt(i)), runtimeDeviceType, 0, -1,
                    t.start.getLong(i), t.start.getLong(i) + t.duration.getLong(i), t.tid,
                    corr == NONE ? -1 : corr, driver ? -1 : op, Map.of());
            if (corr != NONE) {
                opOfCorrelation.put(corr, op);
            }
        }
        int work = (int) deviceExternal.size();
        for (int x = 0; x < work; x++) {
            min = Math.min(min, device.start(x));
            max = Math.max(max, device.end(x));
            long corr = deviceCorrelation.getLong(x);
            long ext = deviceExternal.getLong(x);
            long op = corr != NONE ? opOfCorrelation.get(corr, Long.MIN_VALUE) : Long.MIN_VALUE;
            if (op == Long.MIN_VALUE && ext != NONE && ext != corr) {
                op = opByExternal.get(ext, -1);
            }
            if (op == Long.MIN_VALUE && flowOp.containsKey(x)) {
                op = flowOp.get(x);
            }
            device.setOp(x, op == Long.MIN_VALUE ? -1 : op);
        }
        if (steps.isEmpty() && iterations.size() > 1) {
            // no ProfilerStep#N: Kineto's own iterations, each from its first host event to its last
            iterations.forEach((n, s) -> steps.add(new StepSpan(n, -1, s[0], s[1])));
        }
        steps.sort(java.util.Comparator.comparingLong(StepSpan::startNanos));
        steps.forEach(b::step);
        describeDevices(b);
        return b.device(device)
                .process(processName, processId)
                .window(min == Long.MAX_VALUE ? 0 : min, max == Long.MIN_VALUE ? 0 : max, epochOffset)
                .build();
    }

    /** Gives each thread the legacy flows that start on it: per device row, the flow's start time, in time order. */
    private void addFlowQueries() {
        if (flowThread.size() == 0) {
            return;
        }
        for (int x = 0; x < deviceExternal.size(); x++) {
            long corr = deviceCorrelation.getLong(x);
            long thread = corr == NONE ? -1 : flowThread.get(corr, -1);
            if (thread >= 0) {
                threads.get((int) thread).flowQueries.add(new long[] {flowTime.get(corr, 0), x});
            }
        }
        for (Staged t : threads) {
            t.flowQueries.sort((a, c) -> Long.compare(a[0], c[0]));
        }
    }

    private void describeDevices(TraceData.Builder b) {
        Map<String, TraceDevice> described = new LinkedHashMap<>();
        for (TraceDevice d : devices) {
            described.put(d.type() + ":" + d.index(), d);
        }
        TreeSet<String> seen = new TreeSet<>();
        for (int x = 0; x < device.size(); x++) {
            if (device.kind(x).isDeviceWork()) {
                seen.add(device.deviceType(x) + ":" + device.deviceIndex(x));
            }
        }
        for (String key : seen) {
            TraceDevice d = described.get(key);
            int colon = key.lastIndexOf(':');
            b.deviceInfo(d != null ? d : new TraceDevice(key.substring(0, colon),
                    Math.max(0, Integer.parseInt(key.substring(colon + 1))), false, Map.of()));
        }
    }

    /**
     * Nests one thread's events by time and writes them in that order: steps become spans, runtime calls are kept
     * for linking (with the innermost op holding their start), legacy flows find their op, every other event is a
     * row at its depth, with its details re-keyed to its row.
     */
    private HostThread nest(int k, Staged t, LongLongMap opByExternal, List<long[]> runtimeCalls,
            Map<Integer, Long> flowOp, List<StepSpan> steps) {
        Column order = nestingOrder(t);
        HostRows rows = HostRows.growable(source);
        Column arena = Column.longs(source);
        int[] stackRow = new int[32];
        long[] stackEnd = new long[32];
        long[] stackOp = new long[32];
        int depth = 0;
        int q = 0;
        for (int n = 0; n < t.size; n++) {
            int i = order == null ? n : order.getInt(n);
            long start = t.start.getLong(i);
            long end = start + t.duration.getLong(i);
            while (q < t.flowQueries.size() && t.flowQueries.get(q)[0] < start) {
                depth = answer(t.flowQueries.get(q++), depth, stackEnd, stackOp, flowOp);
            }
            // an event that starts inside an open one and ends after it (pytorch#174555) is its sibling, as torch's
            // own tree takes it; beyond the format's microsecond, it is counted ({@link #overlaps})
            boolean overlapping = false;
            while (depth > 0 && end > stackEnd[depth - 1]) {
                overlapping |= stackEnd[depth - 1] > start && end - stackEnd[depth - 1] > ROUNDING_NANOS;
                depth--;
            }
            if (overlapping) {
                overlaps++;
            }
            int code = (int) t.kind.get(i);
            if (code == STEP) {
                steps.add(new StepSpan(StepRule.stepNumber(names.get(t.nameId.getInt(i))), t.tid, start, end));
                continue;
            }
            if (code == EventKind.RUNTIME.id() || code == DRIVER) {
                runtimeCalls.add(new long[] {k, i, depth > 0 ? stackOp[depth - 1] : -1});
                continue;
            }
            int row = rows.size();
            long at = t.detailsAt.getLong(i);
            if (at >= 0) {
                copyDetails(t.arena, at, row, arena);
            }
            rows.add(start, end, t.nameId.getInt(i), code, at >= 0, depth);
            long handle = TraceData.handle(k, row);
            Map<String, String> given = t.args.get(i);
            if (given != null) {
                hostArgs.put(handle, given);
            }
            if (code == EventKind.CPU_OP.id() && t.external.getLong(i) != NONE) {
                opByExternal.put(t.external.getLong(i), handle);
            }
            if (code == EventKind.MEMORY.id() || code == EventKind.OUT_OF_MEMORY.id()) {
                continue;   // an instant: a child of the open op, never a parent
            }
            if (depth == stackRow.length) {
                stackRow = java.util.Arrays.copyOf(stackRow, depth * 2);
                stackEnd = java.util.Arrays.copyOf(stackEnd, depth * 2);
                stackOp = java.util.Arrays.copyOf(stackOp, depth * 2);
            }
            stackRow[depth] = row;
            stackEnd[depth] = end;
            // the innermost op at this level: a runtime call inside an annotation inside an op belongs to the op
            stackOp[depth] = code == EventKind.CPU_OP.id() ? handle : depth > 0 ? stackOp[depth - 1] : -1;
            depth++;
        }
        while (q < t.flowQueries.size()) {
            depth = answer(t.flowQueries.get(q++), depth, stackEnd, stackOp, flowOp);
        }
        String name = t.name != null ? t.name : "thread " + t.key;
        return new HostThread(t.tid, name, 0, rows, arena.size() == 0 ? null : arena);
    }

    private static int answer(long[] query, int depth, long[] stackEnd, long[] stackOp, Map<Integer, Long> flowOp) {
        while (depth > 0 && stackEnd[depth - 1] < query[0]) {
            depth--;
        }
        if (depth > 0 && stackOp[depth - 1] >= 0) {
            flowOp.put((int) query[1], stackOp[depth - 1]);
        }
        return depth;
    }

    /** Copies one details entry to the end of another arena, re-keyed to a row. */
    private static void copyDetails(Column from, long at, int row, Column to) {
        long end = Details.skip(from, at);
        long head = from.getLong(at);
        to.append((head & ~0xFFFF_FFFFL) | (row & 0xFFFF_FFFFL));
        for (long p = at + 1; p < end; p++) {
            to.append(from.getLong(p));
        }
    }

    /**
     * The thread's events in nesting order: by start, a longer event before a shorter one starting with it, else as
     * given; null when they are in that order already (as Kineto and Vantage write them), which costs no sort.
     * Otherwise a stable merge sort of positions, in columns, so a big thread's order costs the heap nothing.
     */
    private Column nestingOrder(Staged t) {
        int n = t.size;
        boolean sorted = true;
        for (int i = 1; i < n && sorted; i++) {
            sorted = !before(t, i, i - 1);
        }
        if (sorted) {
            return null;
        }
        Column a = Column.ints(source);
        Column tmp = Column.ints(source, n, 0);
        for (int i = 0; i < n; i++) {
            a.append(i);
        }
        // runs of 16 by insertion, then merges of doubling width
        for (int lo = 0; lo < n; lo += 16) {
            int hi = Math.min(lo + 16, n);
            for (int i = lo + 1; i < hi; i++) {
                int v = a.getInt(i);
                int j = i - 1;
                while (j >= lo && before(t, v, a.getInt(j))) {
                    a.set(j + 1, a.getInt(j));
                    j--;
                }
                a.set(j + 1, v);
            }
        }
        Column from = a;
        Column to = tmp;
        for (int width = 16; width < n; width *= 2) {
            for (int lo = 0; lo < n; lo += 2 * width) {
                int mid = Math.min(lo + width, n);
                int hi = Math.min(lo + 2 * width, n);
                int i = lo;
                int j = mid;
                for (int k = lo; k < hi; k++) {
                    if (j >= hi || i < mid && !before(t, from.getInt(j), from.getInt(i))) {
                        to.set(k, from.getInt(i++));
                    } else {
                        to.set(k, from.getInt(j++));
                    }
                }
            }
            Column swap = from;
            from = to;
            to = swap;
        }
        return from;
    }

    private static boolean before(Staged t, int a, int b) {
        long sa = t.start.getLong(a);
        long sb = t.start.getLong(b);
        return sa != sb ? sa < sb : t.duration.getLong(a) > t.duration.getLong(b);
    }
}
