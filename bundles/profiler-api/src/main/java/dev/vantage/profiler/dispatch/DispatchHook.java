package dev.vantage.profiler.dispatch;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Called around every op the runtime dispatches and every {@code RecordFunction} scope, on the calling thread.
 * Register one as a service (a FLOP counter, an op logger); the profiler core binds them all. Implementations must
 * be fast and thread-safe, must not block, and should not throw: a throwing hook is isolated and reported, and the
 * op runs regardless.
 */
@ConsumerType
public interface DispatchHook {

    /**
     * Called before the kernel runs.
     *
     * @param call the op; valid only during this call
     * @return a value handed back to {@link #onExit}, for instance the index of a record
     */
    long onEnter(OpCall call);

    /**
     * Called after the kernel returned or threw, on the same thread as {@link #onEnter}.
     *
     * @param call the op; valid only during this call
     * @param handle what {@link #onEnter} returned
     */
    void onExit(OpCall call, long handle);
}
