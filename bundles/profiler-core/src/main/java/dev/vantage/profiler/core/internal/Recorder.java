package dev.vantage.profiler.core.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import dev.vantage.profiler.dispatch.CallKind;
import dev.vantage.profiler.dispatch.DispatchHook;
import dev.vantage.profiler.dispatch.DispatchThread;
import dev.vantage.profiler.dispatch.OpCall;
import dev.vantage.profiler.dispatch.OpNames;
import dev.vantage.profiler.memory.MemoryCategory;
import dev.vantage.profiler.memory.MemorySink;
import dev.vantage.profiler.memory.MemoryThread;
import dev.vantage.profiler.spi.ActivitySession;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.trace.engine.Flops;
import dev.vantage.trace.engine.HostThread;
import dev.vantage.trace.engine.TraceData;
import dev.vantage.trace.engine.store.Column;
import dev.vantage.trace.engine.store.Details;
import dev.vantage.trace.engine.store.HostRows;

/**
 * The core's own dispatch hook: records one event per op and annotation into the calling thread's
 * {@link ThreadBuffer}. One recorder serves one cycle of one profile.
 *
 * <p>Hot path, with shapes, stacks and device sessions off: the thread's buffer read from a slot of the
 * {@link DispatchThread} the op carries (no lookup of the recorder's own), two {@code System.nanoTime()} reads and
 * a few stores into an off-heap row; no lock and no allocation. Details (shapes, stack id, autograd links) go to
 * the thread's arena only for events that have them. With device sessions, ops push and pop their correlation
 * handle so device work links back to them. A thread's first event registers its buffer under a lock.
 *
 * <p>Every recorder keeps its buffers in the same slot, so a thread holds at most one buffer however many cycles
 * it recorded in: a new cycle's first event on the thread replaces the old cycle's buffer, which is then kept only
 * by that cycle's snapshots (a thread that never records again keeps its last one until it ends).
 */
final class Recorder implements DispatchHook, MemorySink {

    private static final int CPU_OP = EventKind.CPU_OP.id();
    private static final int USER_ANNOTATION = EventKind.USER_ANNOTATION.id();
    private static final int MEMORY = EventKind.MEMORY.id();
    private static final int OUT_OF_MEMORY = EventKind.OUT_OF_MEMORY.id();
    private static final int MEMORY_NAME = OpNames.intern("[memory]");
    private static final int OUT_OF_MEMORY_NAME = OpNames.intern("[OutOfMemory]");

    private final ChunkPool pool;
    private final boolean shapes;
    private final boolean flops;
    private final StackTable stacks;
    /** Whether any op may carry details: shapes, FLOP shapes or stacks. */
    private final boolean details;
    private final ActivitySession[] sessions;
    private final AtomicLong sessionFailures = new AtomicLong();
    /** The slot of every thread's {@link DispatchThread} that holds its buffer of the current recorder. */
    private static final int BUFFER = DispatchThread.newSlot();

    /** Tells this recorder's buffers from an earlier recorder's left in a thread's slot; holds nothing. */
    private final Object owner = new Object();
    /** Every thread's buffer, for threads whose slot was lost; weak, so that a finished thread can go. */
    private final java.util.Map<Thread, ThreadBuffer> byThread = new java.util.WeakHashMap<>();
    private volatile ThreadBuffer[] buffers = new ThreadBuffer[0];
    private volatile List<LiveBlocks.Block> preexisting = List.of();
    /** The arguments of the events that carry some ({@code record_param_comms}), by event handle. */
    private final Map<Long, Map<String, String>> hostArgs = new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.Queue<Recategorized> recategorized = new java.util.concurrent.ConcurrentLinkedQueue<>();
    /** Per name id: 0 not looked at yet, 1 has a FLOP formula, 2 has none. Racy on purpose: a repeat is harmless. */
    private byte[] flopOps = new byte[256];
    /** The blocks the garbage collector freed in this window because nobody released them. */
    private final java.util.Queue<LateFree> lateFrees = new java.util.concurrent.ConcurrentLinkedQueue<>();
    /**
     * The time of the last memory event, of any thread and device: each memory event's time is after it, so that
     * the trace orders memory events as their allocators counted them (an allocator reports under its lock).
     */
    private static final AtomicLong MEMORY_CLOCK = new AtomicLong(Long.MIN_VALUE);

    /** A block the collector freed: its device, size and category, and the op that allocated it. */
    record LateFree(String device, long bytes, MemoryCategory category, String allocatedBy) {
    }

    Recorder(ChunkPool pool, boolean shapes, boolean flops, StackTable stacks, ActivitySession[] sessions) {
        this.pool = pool;
        this.shapes = shapes;
        this.flops = flops;
        this.stacks = stacks;
        this.details = shapes || flops || stacks != null;
        this.sessions = sessions;
    }

    @Override
    public long onEnter(OpCall call) {
        ThreadBuffer b = buffer(call.thread());
        if (call.kind() != CallKind.OP) {
            return annotation(b, call);
        }
        int slot = b.reserve();
        boolean withDetails = slot >= 0 && (details || call.sequenceNumber() >= 0 || call.forwardThreadId() >= 0)
                && details(b, slot, call);
        long handle = b.handle(slot);
        if (sessions.length > 0) {
            push(handle);
        }
        if (slot >= 0) {
            // the row is written once, last, so that its start leaves out the recorder's own work
            b.started(slot, call.nameId(), CPU_OP, withDetails, System.nanoTime());
            Map<String, String> args = call.args();
            if (!args.isEmpty()) {
                hostArgs.put(handle, args);
            }
        }
        return handle;
    }

    /** Kept out of {@link #onEnter}, so that the common path stays small enough to inline. */
    private long annotation(ThreadBuffer b, OpCall call) {
        int slot = b.reserve();
        if (slot >= 0) {
            // a scope given inputs (a collective's gloo:all_reduce) carries its shapes as an op does
            boolean withDetails = shapes && call.inputCount() > 0
                    && Details.write(b.extras, b.recentInputs, slot, call, true, -1);
            b.started(slot, call.nameId(), USER_ANNOTATION, withDetails, System.nanoTime());
            Map<String, String> args = call.args();
            if (!args.isEmpty()) {
                hostArgs.put(b.handle(slot), args);
            }
        }
        return b.handle(slot);
    }

    /**
     * Writes shapes, stack and autograd links, and returns whether it did (memory may have run out); kept out of
     * {@link #onEnter} for the same reason.
     */
    private boolean details(ThreadBuffer b, int slot, OpCall call) {
        boolean withShapes = shapes || flops && hasFlopFormula(call.nameId());
        int stackId = stacks != null ? stacks.capture() : -1;
        return Details.write(b.extras, b.recentInputs, slot, call, withShapes, stackId);
    }

    @Override
    public void onExit(OpCall call, long handle) {
        long now = System.nanoTime();
        if (handle < 0) {
            return;   // onEnter failed before it had a row
        }
        // the thread's own buffer is two loads from the frame; the buffers array, which an op needs whose thread
        // took up a later recorder's buffer while it ran, is four from the frame
        int index = (int) (handle >>> ThreadBuffer.SLOT_BITS);
        ThreadBuffer b = call.thread().get(BUFFER) instanceof ThreadBuffer mine && mine.index == index
                && mine.recorder == owner ? mine : buffers[index];
        b.end(handle, now);
        if (sessions.length > 0 && call.kind() == CallKind.OP) {
            pop();
        }
    }

    @Override
    public void allocated(String deviceType, int deviceIndex, long address, long bytes, long totalAllocated,
            long totalReserved) {
        allocated(DispatchThread.current(), deviceType, deviceIndex, address, bytes, totalAllocated, totalReserved);
    }

    /** An allocation or free on a thread whose state the caller looked up already. */
    void allocated(DispatchThread thread, String deviceType, int deviceIndex, long address, long bytes,
            long totalAllocated, long totalReserved) {
        instant(thread, MEMORY_NAME, MEMORY, deviceType, deviceIndex, address, bytes, totalAllocated,
                totalReserved);
    }

    @Override
    public void outOfMemory(String deviceType, int deviceIndex, long bytes, long totalAllocated,
            long totalReserved) {
        instant(DispatchThread.current(), OUT_OF_MEMORY_NAME, OUT_OF_MEMORY, deviceType, deviceIndex, 0, bytes,
                totalAllocated, totalReserved);
    }

    @Override
    public void categorized(String deviceType, int deviceIndex, long address, MemoryCategory category) {
        // rare (a parameter's gradient, a registered parameter), so a record and a lock-free queue are fine here
        recategorized.add(new Recategorized(System.nanoTime(), deviceType, deviceIndex, address, category));
    }

    /** Counts a block the garbage collector freed because nobody released it; rare, so a record is fine. */
    void collected(String deviceType, int deviceIndex, long bytes, MemoryCategory category, String allocatedBy) {
        String device = deviceIndex < 0 ? deviceType : deviceType + ":" + deviceIndex;
        lateFrees.add(new LateFree(device, bytes, category, allocatedBy));
    }

    /** Returns the late frees of this window, in the order they were reported. */
    List<LateFree> lateFrees() {
        return List.copyOf(lateFrees);
    }

    /**
     * A memory event: an instant at the current depth, so that its parent is the op that allocated. Its category
     * is the thread's at this moment. Its time comes from {@link #memoryClock}: allocators report under their lock,
     * so trace order is the order in which they counted, and {@code Total Allocated} is a running sum in it.
     */
    private void instant(DispatchThread thread, int name, int kind, String deviceType, int deviceIndex, long address,
            long bytes, long totalAllocated, long totalReserved) {
        ThreadBuffer b = buffer(thread);
        int slot = b.reserve();
        boolean withDetails = slot >= 0 && Details.writeMemory(b.extras, slot, OpNames.intern(deviceType),
                deviceIndex, address, bytes, totalAllocated, totalReserved, MemoryThread.category(thread).ordinal());
        long now = memoryClock();
        if (slot >= 0) {
            b.started(slot, name, kind, withDetails, now);
        }
        b.end(b.handle(slot), now);
    }

    /**
     * {@code System.nanoTime()}, made strictly later than every memory event's before: two threads can read the same
     * nanosecond, and then the trace could not tell which allocation or free came first.
     */
    static long memoryClock() {
        long now = System.nanoTime();
        while (true) {
            long last = MEMORY_CLOCK.get();
            long t = now > last ? now : last + 1;
            if (MEMORY_CLOCK.compareAndSet(last, t)) {
                return t;
            }
        }
    }

    private void push(long handle) {
        for (ActivitySession s : sessions) {
            try {
                s.pushCorrelation(handle);
            } catch (RuntimeException e) {
                sessionFailures.incrementAndGet();
            }
        }
    }

    private void pop() {
        for (ActivitySession s : sessions) {
            try {
                s.popCorrelation();
            } catch (RuntimeException e) {
                sessionFailures.incrementAndGet();
            }
        }
    }

    private boolean hasFlopFormula(int nameId) {
        byte[] known = flopOps;
        if (nameId >= known.length) {
            known = Arrays.copyOf(known, Math.max(nameId + 1, known.length * 2));
            flopOps = known;
        }
        if (known[nameId] == 0) {
            known[nameId] = Flops.hasFormula(OpNames.name(nameId)) ? (byte) 1 : (byte) 2;
        }
        return known[nameId] == 1;
    }

    /** Returns the thread's buffer for this recorder, registering one at the thread's first event. */
    private ThreadBuffer buffer(DispatchThread thread) {
        Object b = thread.get(BUFFER);
        if (b instanceof ThreadBuffer buffer && buffer.recorder == owner) {
            return buffer;
        }
        ThreadBuffer buffer = register(thread.thread());
        thread.set(BUFFER, buffer);
        return buffer;
    }

    private synchronized ThreadBuffer register(Thread thread) {
        // A thread whose thread-locals are erased between tasks (the JDK's Cleaner threads, which may report the
        // frees of an allocator's collected blocks) comes back here on every event: it keeps its one buffer, and one trace row
        ThreadBuffer known = byThread.get(thread);
        if (known != null) {
            return known;
        }
        ThreadBuffer[] current = buffers;
        ThreadBuffer buffer = new ThreadBuffer(current.length, thread, pool, owner);
        ThreadBuffer[] grown = Arrays.copyOf(current, current.length + 1);
        grown[current.length] = buffer;
        buffers = grown;
        byThread.put(thread, buffer);
        return buffer;
    }

    /** Returns a frozen view of every thread's events, in order of the threads' first events. */
    List<ThreadBuffer.Snapshot> snapshot() {
        return snapshot(Long.MAX_VALUE);
    }

    /** Returns the arguments of the events that carry some, by event handle ({@link ThreadBuffer#handle}). */
    Map<Long, Map<String, String>> hostArgs() {
        return Map.copyOf(hostArgs);
    }

    /** Returns every thread's snapshot, without the events that began after {@code stopNanos}. */
    List<ThreadBuffer.Snapshot> snapshot(long stopNanos) {
        List<ThreadBuffer.Snapshot> result = new ArrayList<>();
        for (ThreadBuffer b : buffers) {
            result.add(b.snapshot().until(stopNanos));
        }
        return result;
    }

    /**
     * Drops the calling thread's link to its buffer, so that the buffer can be recycled once the cycle is gone
     * (other threads' links go at their next recorded event, or with the thread).
     */
    void forgetCurrentThread() {
        DispatchThread thread = DispatchThread.current();
        if (thread.get(BUFFER) instanceof ThreadBuffer buffer && buffer.recorder == owner) {
            thread.set(BUFFER, null);
        }
    }

    /** Sets the blocks that were live when this recorder's window began; called before it records memory. */
    void preexisting(List<LiveBlocks.Block> blocks) {
        preexisting = List.copyOf(blocks);
    }

    /** Returns the blocks that were live when this recorder's window began (empty unless memory is recorded). */
    List<LiveBlocks.Block> preexisting() {
        return preexisting;
    }

    /** Returns the blocks re-categorised during this recorder's window, in the order they were reported. */
    List<Recategorized> recategorized() {
        return List.copyOf(recategorized);
    }

    /** Returns how often a device session threw from a correlation call. */
    long sessionFailures() {
        return sessionFailures.get();
    }

    StackTable stacks() {
        return stacks;
    }

    /**
     * The events one thread records in one cycle: the trace engine's 24-byte host rows ({@link HostRows}: start, end,
     * name id, kind and nesting depth) in off-heap chunks from the cycle's {@link ChunkPool}, and a details column for
     * what some events carry ({@link Details}). At stop the chunks are handed to the engine as they are ({@link
     * Snapshot#hostThread}), without a copy.
     *
     * <p>Concurrency: only the owning thread writes. It publishes each event with a release store of {@code size}
     * after writing the row; a reader that acquires {@code size} sees every row below it and the details written
     * before. An event's end is a plain store: it is visible to a reader whose thread joined the recording thread or
     * is that thread, which is how profiles are read; an end that is not visible reads as 0 and the event is closed at
     * the stop time.
     *
     * <p>When the pool has no chunk left, the thread drops every further event and counts it; a dropped event is
     * still tracked for nesting, so the depth of later events stays right.
     */
    static final class ThreadBuffer {

        static final int CHUNK_SHIFT = HostRows.CHUNK_SHIFT;
        static final int CHUNK_EVENTS = HostRows.CHUNK_ROWS;
        static final int CHUNK_MASK = HostRows.CHUNK_MASK;
        static final int ROW_BYTES = HostRows.ROW_BYTES;
        /** Bits of a handle that hold the slot; the bits above hold the buffer index (the engine's handle). */
        static final int SLOT_BITS = TraceData.SLOT_BITS;
        static final long SLOT_MASK = TraceData.SLOT_MASK;
        /** The slot of a handle whose event was dropped. */
        static final long DROPPED_SLOT = SLOT_MASK;
        private static final VarHandle SIZE;
        private static final VarHandle DROPPED;
        private static final VarHandle EXTRAS_SIZE;

        static {
            try {
                MethodHandles.Lookup lookup = MethodHandles.lookup();
                SIZE = lookup.findVarHandle(ThreadBuffer.class, "size", int.class);
                DROPPED = lookup.findVarHandle(ThreadBuffer.class, "dropped", long.class);
                EXTRAS_SIZE = lookup.findVarHandle(ThreadBuffer.class, "extrasSize", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        final int index;
        /** The recorder this buffer belongs to, as its token. */
        final Object recorder;
        final long threadId;
        final String threadName;
        final Column extras;
        /** The inputs this thread recorded lately, so that an op recorded again with the same ones refers back. */
        final Details.Recent recentInputs = new Details.Recent();
        private final ChunkPool pool;
        private final Blocks blocks;
        private ByteBuffer[] chunks;
        /** The chunk rows are reserved in now, and its first slot. */
        private ByteBuffer newestChunk;
        private int newestChunkStart = Integer.MAX_VALUE;
        private int reserved;
        private int size;
        private int depth;
        private boolean full;
        private long dropped;
        /**
         * The bytes of {@link #extras} the published rows use; written with release and read with acquire, as
         * {@link #size}: a snapshot may read a newer value than its rows need (the next event's details), and must then
         * see the blocks that hold them. A plain load allowed a weakly ordered machine to see the size before the blocks.
         */
        private long extrasSize;

        ThreadBuffer(int index, Thread thread, ChunkPool pool, Object recorder) {
            this.index = index;
            this.recorder = recorder;
            this.threadId = thread.getId();
            this.threadName = thread.getName();
            this.pool = pool;
            this.blocks = new Blocks(pool);
            this.chunks = blocks.rows;
            this.extras = blocks.details;
            // once no writer (this buffer) and no reader (snapshots hold it) remains, its blocks are reused
            OffHeap.CLEANER.register(this, blocks);
        }

        /** The off-heap blocks of one buffer, returned to {@link OffHeap} when the buffer is gone. */
        private static final class Blocks implements Runnable {
            ByteBuffer[] rows = new ByteBuffer[8];
            final Column details;

            Blocks(ChunkPool pool) {
                this.details = Column.longsInWholeBlocks(bytes -> pool.takeDetails());
            }

            @Override
            public void run() {
                for (ByteBuffer b : rows) {
                    OffHeap.ROWS.give(b);
                }
                for (ByteBuffer b : details.blocks()) {
                    OffHeap.DETAILS.give(b);
                }
            }
        }

        /**
         * Reserves the next row for an event one level deeper than the open events. Nothing is written yet: the caller
         * appends the event's details, if any, then writes the row once with {@link #started}.
         *
         * @return the slot, or -1 when the event is dropped
         */
        int reserve() {
            int n = reserved;
            depth++;
            if ((n & CHUNK_MASK) == 0 && !addChunk(n >>> CHUNK_SHIFT)) {
                DROPPED.setRelease(this, dropped + 1);
                return -1;
            }
            reserved = n + 1;
            return n;
        }

        /**
         * Writes a reserved row (start, name, kind, the depth it was reserved at, whether it has details) and publishes
         * it. The chunk came zeroed, so the end reads 0 until {@link #end} writes it.
         *
         * @param withDetails whether the caller appended the event's details to {@link #extras} since reserving
         */
        void started(int slot, int nameId, int kind, boolean withDetails, long startNanos) {
            int kindWord = HostRows.kindWord(kind, withDetails, depth - 1);
            ByteBuffer chunk = chunk(slot);
            int at = (slot & CHUNK_MASK) * ROW_BYTES;
            chunk.putLong(at + HostRows.START, startNanos);
            chunk.putLong(at + HostRows.HEADER, HostRows.header(nameId, kindWord));
            if (withDetails) {
                EXTRAS_SIZE.setRelease(this, extras.size());
            }
            SIZE.setRelease(this, slot + 1);
        }

        /** Records the end of the event of a handle; the slot may be {@link #DROPPED_SLOT}. */
        void end(long handle, long endNanos) {
            depth--;
            long slot = handle & SLOT_MASK;
            if (slot != DROPPED_SLOT) {
                int s = (int) slot;
                chunk(s).putLong((s & CHUNK_MASK) * ROW_BYTES + HostRows.END, endNanos);
            }
        }

        /**
         * The chunk of a slot: an event is mostly written and ended in the chunk of the newest row, one load away
         * instead of two, which counts because a recorded op waits for every load before it reads the clock.
         */
        private ByteBuffer chunk(int slot) {
            return slot >= newestChunkStart ? newestChunk : chunks[slot >>> CHUNK_SHIFT];
        }

        long handle(int slot) {
            return ((long) index << SLOT_BITS) | (slot < 0 ? DROPPED_SLOT : slot);
        }

        private boolean addChunk(int c) {
            if (full) {
                return false;
            }
            ByteBuffer chunk = pool.take();
            if (chunk == null) {
                full = true;
                return false;
            }
            if (c == chunks.length) {
                chunks = Arrays.copyOf(chunks, c * 2);
                blocks.rows = chunks;
            }
            chunks[c] = chunk;
            newestChunk = chunk;
            newestChunkStart = c << CHUNK_SHIFT;
            return true;
        }

        /** Returns a stable view of what was recorded so far; call after recording stopped. */
        Snapshot snapshot() {
            int n = (int) SIZE.getAcquire(this);
            long d = (long) DROPPED.getAcquire(this);
            long e = (long) EXTRAS_SIZE.getAcquire(this);
            return new Snapshot(this, index, threadId, threadName, chunks.clone(), n, d, extras.frozen(e));
        }

        /**
         * The recorded events of one thread, frozen at stop. It holds its buffer, so the buffer's blocks are not
         * recycled while the snapshot can still be read.
         */
        record Snapshot(ThreadBuffer owner, int index, long threadId, String threadName, ByteBuffer[] chunks, int size,
                long dropped, Column extras) {

            /**
             * Returns the snapshot without the events that began after a time: a thread that was still dispatching
             * when its window stopped may have recorded a few more before it noticed. A thread's events are in the
             * order they began.
             */
            Snapshot until(long stopNanos) {
                HostRows rows = rows();
                int n = size;
                while (n > 0 && rows.start(n - 1) > stopNanos) {
                    n--;
                }
                return n == size ? this : new Snapshot(owner, index, threadId, threadName, chunks, n, dropped, extras);
            }

            /** The rows, as the engine reads them. */
            HostRows rows() {
                return HostRows.of(chunks, size);
            }

            /** The thread's events as the engine takes them: the same blocks, no copy. */
            HostThread hostThread() {
                return new HostThread(threadId, threadName, dropped, rows(), extras.size() == 0 ? null : extras);
            }
        }
    }
}
