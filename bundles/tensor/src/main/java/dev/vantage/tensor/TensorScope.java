package dev.vantage.tensor;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Frees the tensors made on a thread while it is open, when it closes: the JVM's idiom for native memory (DJL's
 * {@code NDManager}, {@code AutoCloseable}) for what PyTorch frees when the last reference goes. Memory then goes
 * back to the device's allocator at a known point, not when the garbage collector gets to it:
 * <pre>{@code
 * for (int step = 0; step < steps; step++) {
 *     try (TensorScope scope = TensorScope.open()) {
 *         Tensor loss = Functional.crossEntropy(model.forward(images), labels);
 *         optimizer.zeroGrad();
 *         loss.backward();
 *         optimizer.step();
 *         losses[step] = loss.item();
 *     }   // the step's activations, temporaries and loss are freed here
 * }
 * }</pre>
 * What lives on is what something owns: a module's parameters, their gradients (until {@code zeroGrad}), an
 * optimizer's state, and tensors the scope hands out with {@link #keep} (to the enclosing scope, or to no scope).
 * Autograd holds what it saved for the backward pass on its own and lets go of each as soon as backward has used
 * it, so activations are freed during {@code backward()}, as in torch; an op frees its own temporaries when it
 * ends.
 *
 * <p>A tensor is closed at most once; a closed tensor cannot be used in an op, and its memory is freed when no
 * other tensor (a view, or one autograd saved) uses it. A tensor no scope and no owner closes is freed by the
 * garbage collector as before: such late frees are counted and named in a memory profile's metadata.
 *
 * <p>Scopes belong to the thread that opened them and nest; close them in reverse order, with try-with-resources.
 * Only tensors made on that thread join a scope. The list of what the open scopes own is the thread's
 * ({@code OpThread}): an op that makes a tensor while a scope is open adds it there with the thread state it looked up
 * for everything else.
 */
public final class TensorScope implements AutoCloseable {

    /** Scopes open on any thread: while none is, making a tensor looks up nothing. */
    private static final AtomicInteger OPEN = new AtomicInteger();

    private final OpThread owner;
    private final TensorScope parent;
    private final int start;
    private boolean closed;

    private TensorScope(OpThread owner) {
        this.owner = owner;
        this.parent = owner.scope;
        this.start = owner.ownedCount;
    }

    /** Opens a scope on the calling thread: tensors made on it until the scope closes belong to the scope. */
    public static TensorScope open() {
        OpThread t = OpThread.current();
        TensorScope s = new TensorScope(t);
        t.scope = s;
        OPEN.incrementAndGet();
        return s;
    }

    /** Returns true while a scope is open on any thread: then a new tensor may have a scope to join. */
    static boolean anyOpen() {
        return OPEN.get() != 0;
    }

    /** A tensor made outside an op (a factory's, a copy's) joins the innermost scope open on its thread, if any. */
    static void adopt(Tensor t) {
        if (OPEN.get() != 0) {
            OpThread.current().adopt(t);
        }
    }

    /**
     * Lets a tensor this scope owns outlive it: it then belongs to the enclosing scope, or to none when this is the
     * outermost. A tensor this scope does not own is left as it is.
     *
     * @return the tensor, so that {@code return scope.keep(result);} reads well
     */
    public Tensor keep(Tensor t) {
        if (t != null && t.scope == this) {
            t.scope = parent;
        }
        return t;
    }

    /**
     * Takes a tensor out of whatever scope owns it: it lives until closed, or, if never closed, until the garbage
     * collector frees it (a late free). For what an object keeps across steps, as a module its parameters and an
     * optimizer its state.
     *
     * @return the tensor
     */
    public static Tensor escape(Tensor t) {
        if (t != null) {
            t.scope = null;
        }
        return t;
    }

    /**
     * Closes every tensor this scope still owns, newest first, and hands those kept to the enclosing scope.
     *
     * @throws IllegalStateException if called on another thread, or while a scope opened inside it is open
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        Thread thread = owner.thread.thread();
        if (Thread.currentThread() != thread) {
            throw new IllegalStateException("a TensorScope is closed on the thread that opened it ("
                    + thread.getName() + "), not on " + Thread.currentThread().getName());
        }
        if (owner.scope != this) {
            throw new IllegalStateException("a TensorScope opened inside this one is still open; close scopes in"
                    + " reverse order (try-with-resources)");
        }
        closed = true;
        owner.scope = parent;
        OPEN.decrementAndGet();
        Tensor[] list = owner.owned;
        int end = owner.ownedCount;
        try {
            for (int i = end - 1; i >= start; i--) {
                Tensor t = list[i];
                if (t.scope == this) {
                    t.scope = null;
                    t.close();
                }
            }
        } finally {
            int kept = start;
            for (int i = start; i < end; i++) {
                Tensor t = list[i];
                list[i] = null;
                if (parent != null && t.scope == parent && !t.isClosed()) {
                    list[kept++] = t;
                }
            }
            owner.ownedCount = kept;
        }
    }
}
