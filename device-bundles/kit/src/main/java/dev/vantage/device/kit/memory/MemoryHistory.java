package dev.vantage.device.kit.memory;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import dev.vantage.profiler.api.MemorySnapshot.Frame;
import dev.vantage.profiler.api.MemorySnapshot.TraceEntry;

/**
 * The latest actions of an allocator, kept for snapshots as torch's {@code _record_memory_history} keeps them: a
 * ring of at most {@code maxEntries} entries, each optionally with the frames of the allocating code. Off until
 * {@link #enable} is called; while off, recording costs one branch. Not thread-safe: an allocator records under
 * its own lock.
 */
public final class MemoryHistory {

    /** The most frames kept per entry. */
    static final int MAX_FRAMES = 48;

    private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);
    private static final String DEVICE_MEMORY = "dev.vantage.device.kit.emulation.DeviceMemory";

    private final long epochMicros;
    private final long originNanos;
    private TraceEntry[] ring = new TraceEntry[0];
    private int next;
    private long count;
    private boolean stacks;

    /** Creates a history that records nothing yet. */
    public MemoryHistory() {
        Instant now = Instant.now();
        originNanos = System.nanoTime();
        epochMicros = now.getEpochSecond() * 1_000_000 + now.getNano() / 1000;
    }

    /**
     * Starts recording, or stops it and forgets what was recorded.
     *
     * @param maxEntries the entries to keep; 0 stops
     * @param withStacks whether entries carry the allocating code's frames
     */
    public void enable(int maxEntries, boolean withStacks) {
        if (maxEntries < 0) {
            throw new IllegalArgumentException("a memory history keeps 0 or more entries, not " + maxEntries);
        }
        List<TraceEntry> kept = entries();
        ring = new TraceEntry[maxEntries];
        next = 0;
        count = 0;
        stacks = withStacks && maxEntries > 0;
        for (TraceEntry e : kept.subList(Math.max(0, kept.size() - maxEntries), kept.size())) {
            add(e);
        }
    }

    /** Returns whether actions are being recorded. */
    public boolean enabled() {
        return ring.length > 0;
    }

    /** Returns whether recorded actions carry frames. */
    public boolean stacks() {
        return stacks;
    }

    /**
     * Returns the frames of the code calling the allocator, innermost first, when stacks are recorded, else an
     * empty list: the frames of the allocator itself (any {@link BlockAllocator}) and of the emulated device memory
     * above it are left out.
     */
    public List<Frame> frames() {
        if (!stacks) {
            return List.of();
        }
        return WALKER.walk(s -> s.dropWhile(MemoryHistory::allocatorFrame)
                .limit(MAX_FRAMES)
                .map(f -> new Frame(sourcePath(f), Math.max(0, f.getLineNumber()),
                        f.getClassName() + "." + f.getMethodName()))
                .collect(Collectors.toList()));
    }

    private static boolean allocatorFrame(StackWalker.StackFrame f) {
        Class<?> c = f.getDeclaringClass();
        return c == MemoryHistory.class || BlockAllocator.class.isAssignableFrom(c)
                || c.getName().startsWith(DEVICE_MEMORY);
    }

    private static String sourcePath(StackWalker.StackFrame f) {
        String cls = f.getClassName();
        int dot = cls.lastIndexOf('.');
        String dir = dot < 0 ? "" : cls.substring(0, dot).replace('.', '/') + "/";
        String file = f.getFileName();
        return dir + (file != null ? file : cls.substring(dot + 1) + ".java");
    }

    /**
     * Records an action when recording is on.
     *
     * @param action such as {@code alloc}
     * @param frames from {@link #frames()}, or an empty list
     */
    public void record(String action, long address, long size, int stream, long deviceFree, List<Frame> frames) {
        if (ring.length > 0) {
            add(new TraceEntry(action, address, size, stream, nowMicros(), frames, deviceFree));
        }
    }

    private void add(TraceEntry e) {
        ring[next] = e;
        next = (next + 1) % ring.length;
        count++;
    }

    /** Returns the microseconds since the Unix epoch now. */
    public long nowMicros() {
        return epochMicros + (System.nanoTime() - originNanos) / 1000;
    }

    /** Returns the recorded entries, oldest first. */
    public List<TraceEntry> entries() {
        int n = (int) Math.min(count, ring.length);
        List<TraceEntry> out = new ArrayList<>(n);
        int start = (int) ((next - n + (long) ring.length) % Math.max(1, ring.length));
        for (int i = 0; i < n; i++) {
            out.add(ring[(start + i) % ring.length]);
        }
        return out;
    }
}
