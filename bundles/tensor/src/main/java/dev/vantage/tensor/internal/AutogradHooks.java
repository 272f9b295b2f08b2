package dev.vantage.tensor.internal;

import java.util.Objects;
import java.util.function.Consumer;

import dev.vantage.tensor.Tensor;

/**
 * The autograd engine's hooks for the runtime's own packages (distributed data parallel), not exported: a hook run
 * right after a leaf's gradient was accumulated, as torch's {@code register_post_accumulate_grad_hook}, and
 * callbacks queued during a backward pass that run when it ends, as torch's {@code queue_callback}.
 *
 * <p>The engine lives in {@code dev.vantage.tensor} and keeps hooks on the tensor itself, so a leaf without hooks
 * costs one plain field read per accumulation and a hook goes away with its tensor. The engine hands its side to
 * this class when {@link Tensor} is initialised, which has happened by the time anyone holds a tensor.
 */
public final class AutogradHooks {

    /** What the engine supplies; implemented once, in {@code dev.vantage.tensor}. */
    public interface Engine {
        /** Adds a hook to a leaf. */
        void addPostAccumulateHook(Tensor leaf, Consumer<Tensor> hook);

        /** Queues a callback that runs when the backward pass running on this thread ends. */
        void queueCallback(Runnable callback);

        /** Returns the number of the backward pass running on this thread, or -1 outside one. */
        long currentBackward();
    }

    private static volatile Engine engine;

    private AutogradHooks() {
    }

    /**
     * Binds the engine; called by the runtime once.
     *
     * @throws IllegalStateException if an engine is bound already
     */
    public static synchronized void bind(Engine e) {
        if (engine != null) {
            throw new IllegalStateException("the autograd engine is bound already");
        }
        engine = Objects.requireNonNull(e, "engine");
    }

    /**
     * Runs {@code hook} on the thread running backward each time a gradient has been accumulated into {@code leaf}'s
     * {@code grad()}; an exception from the hook ends the backward pass.
     *
     * @throws IllegalArgumentException if the tensor is not a leaf that requires a gradient
     */
    public static void addPostAccumulateHook(Tensor leaf, Consumer<Tensor> hook) {
        Objects.requireNonNull(leaf, "leaf");
        if (!leaf.isLeaf() || !leaf.requiresGrad()) {
            throw new IllegalArgumentException("a post-accumulate hook needs a leaf that requires a gradient, not "
                    + leaf);
        }
        engine.addPostAccumulateHook(leaf, Objects.requireNonNull(hook, "hook"));
    }

    /**
     * Queues a callback that runs on this thread when the backward pass now running ends, after every gradient was
     * accumulated; callbacks run in the order queued and are dropped when the pass fails.
     *
     * @throws IllegalStateException if no backward pass runs on this thread
     */
    public static void queueCallback(Runnable callback) {
        engine.queueCallback(Objects.requireNonNull(callback, "callback"));
    }

    /** Returns the number of the backward pass running on this thread (unique per thread), or -1 outside one. */
    public static long currentBackward() {
        return engine.currentBackward();
    }
}
