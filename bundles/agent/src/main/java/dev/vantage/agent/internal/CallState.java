package dev.vantage.agent.internal;

import dev.vantage.agent.bootstrap.Bridge;
import dev.vantage.profiler.dispatch.DispatchThread;

/**
 * What the agent keeps per application thread, in a slot of the thread's {@link DispatchThread}: how deep the
 * thread is in recorded calls (all of them, per family, and in ONNX Runtime runs). Used only by its thread.
 */
final class CallState {

    private static final int SLOT = DispatchThread.newSlot();

    /** Recorded calls open on the thread: library calls, step methods and runs. */
    int depth;
    /** Open calls per family ({@link Bridge#EMBEDDING_MODEL} ...). */
    final int[] families = new int[Bridge.STEP_METHOD + 1];
    /** Open {@code run} calls of ONNX Runtime sessions, nested overloads included. */
    int runs;

    private CallState() {
    }

    /** Returns the calling thread's state, made at its first call. */
    static CallState current() {
        DispatchThread thread = DispatchThread.current();
        Object state = thread.get(SLOT);
        if (state instanceof CallState s) {
            return s;
        }
        CallState s = new CallState();
        thread.set(SLOT, s);
        return s;
    }
}
