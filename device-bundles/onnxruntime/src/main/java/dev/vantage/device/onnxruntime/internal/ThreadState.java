package dev.vantage.device.onnxruntime.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import dev.vantage.profiler.dispatch.DispatchThread;

/**
 * What this bundle keeps per thread, in a slot of the thread's {@link DispatchThread}: the operating system's id of
 * the thread, which ONNX Runtime writes as {@code tid} into its profile (read once, at the thread's first run, from
 * {@code /proc/thread-self} on Linux; -1 elsewhere), and the correlations the profiler pushed and has not popped on the thread: the innermost
 * is the {@code ort::run} op's own right after that op opened. A thread gets its state at its first push while a
 * window records (or its first run); a pop of a push made before has nothing to undo: the stack never goes below
 * empty.
 */
final class ThreadState {

    private static final int SLOT = DispatchThread.newSlot();
    private static final Path THREAD_SELF = Path.of("/proc/thread-self");

    /** The operating system's thread id, or -1 when unknown; read at the first run on the thread. */
    private long nativeTid = Long.MIN_VALUE;
    /** The correlations pushed and not popped on this thread, innermost last; used only on this thread. */
    private long[] correlations = new long[8];
    private int depth;

    private ThreadState() {
    }

    /** Returns the calling thread's state, made at its first call. */
    static ThreadState current() {
        DispatchThread thread = DispatchThread.current();
        Object state = thread.get(SLOT);
        if (state instanceof ThreadState s) {
            return s;
        }
        ThreadState s = new ThreadState();
        thread.set(SLOT, s);
        return s;
    }

    /**
     * Returns the calling thread's state if it has one, else null; allocates nothing. Called on every op's
     * correlation pop while a window records, so it stays cheap.
     */
    static ThreadState ifPresent() {
        return DispatchThread.current().get(SLOT) instanceof ThreadState s ? s : null;
    }

    /** Returns the operating system's id of this state's thread; call on that thread. */
    long nativeTid() {
        if (nativeTid == Long.MIN_VALUE) {
            nativeTid = readNativeTid();
        }
        return nativeTid;
    }

    /** A host op opened on this thread: work launched from now on belongs to it, as Kineto's correlation push. */
    void push(long correlation) {
        if (depth == correlations.length) {
            correlations = java.util.Arrays.copyOf(correlations, depth * 2);
        }
        correlations[depth++] = correlation;
    }

    /** The op of the last {@link #push} ended. */
    void pop() {
        if (depth > 0) {
            depth--;
        }
    }

    /** Returns the innermost open op's correlation, or -1 when none is open. */
    long correlation() {
        return depth > 0 ? correlations[depth - 1] : -1;
    }

    /** The calling thread's id as the kernel numbers it ({@code /proc/thread-self} links to {@code <pid>/task/<tid>}). */
    static long readNativeTid() {
        try {
            String link = Files.readSymbolicLink(THREAD_SELF).toString();
            return Long.parseLong(link.substring(link.lastIndexOf('/') + 1));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
