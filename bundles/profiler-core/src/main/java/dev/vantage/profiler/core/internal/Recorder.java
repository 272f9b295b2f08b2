package dev.vantage.profiler.core.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import dev.vantage.profiler.spi.DispatchHook;
import dev.vantage.profiler.spi.OpCall;
import dev.vantage.profiler.trace.EventKind;

/**
 * The core's own dispatch hook: records one event per op and annotation into the calling thread's
 * {@link ThreadBuffer}. One recorder serves one profile.
 *
 * <p>Hot path: a thread-local lookup, two {@code System.nanoTime()} reads and a few array stores; no lock and no
 * allocation. A thread's first event registers its buffer under a lock, once per thread and profile.
 */
final class Recorder implements DispatchHook {

    private final EventBudget budget;
    private final ThreadLocal<ThreadBuffer> local = ThreadLocal.withInitial(this::register);
    private volatile ThreadBuffer[] buffers = new ThreadBuffer[0];

    Recorder(long maxEvents) {
        this.budget = new EventBudget(maxEvents);
    }

    @Override
    public long onEnter(OpCall call) {
        int kind = switch (call.kind()) {
            case OP -> EventKind.CPU_OP.id();
            case USER_ANNOTATION -> EventKind.USER_ANNOTATION.id();
        };
        return local.get().begin(call.nameId(), kind, System.nanoTime());
    }

    @Override
    public void onExit(OpCall call, long handle) {
        long now = System.nanoTime();
        if (handle >= 0) {
            buffers[(int) (handle >>> ThreadBuffer.SLOT_BITS)].end(handle, now);
        }
    }

    private synchronized ThreadBuffer register() {
        ThreadBuffer[] current = buffers;
        ThreadBuffer buffer = new ThreadBuffer(current.length, Thread.currentThread(), budget);
        ThreadBuffer[] grown = Arrays.copyOf(current, current.length + 1);
        grown[current.length] = buffer;
        buffers = grown;
        return buffer;
    }

    /** Returns a frozen view of every thread's events, in order of the threads' first events. */
    List<ThreadBuffer.Snapshot> snapshot() {
        List<ThreadBuffer.Snapshot> result = new ArrayList<>();
        for (ThreadBuffer b : buffers) {
            result.add(b.snapshot());
        }
        return result;
    }
}
