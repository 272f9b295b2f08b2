package dev.vantage.profiler.memory;

import java.util.Objects;

import dev.vantage.profiler.dispatch.DispatchThread;

/**
 * Tells the profiler the {@link MemoryCategory} of what the calling thread allocates until the scope closes:
 * <pre>{@code
 * try (MemoryScope scope = MemoryScope.enter(MemoryCategory.OPTIMIZER_STATE)) {
 *     state = Tensor.zeros(device, shape);
 * }
 * }</pre>
 * Scopes nest; the innermost open scope wins. When no profile records memory ({@link MemoryEvents#enabled()} is
 * false), {@link #enter} does nothing and returns a shared scope, so the call costs one field read and a branch. A
 * scope entered then stays without effect even if a profile starts before it closes. Close a scope on the thread
 * that entered it; closing twice does nothing.
 */
public final class MemoryScope implements AutoCloseable {

    private static final MemoryScope NONE = new MemoryScope(null, MemoryCategory.UNKNOWN);

    private DispatchThread thread;
    private final MemoryCategory previous;

    private MemoryScope(DispatchThread thread, MemoryCategory previous) {
        this.thread = thread;
        this.previous = previous;
    }

    /**
     * Makes {@code category} the calling thread's memory category until the returned scope closes.
     *
     * @throws NullPointerException if category is null
     */
    public static MemoryScope enter(MemoryCategory category) {
        Objects.requireNonNull(category, "category");
        if (!MemoryEvents.enabled()) {
            return NONE;
        }
        DispatchThread t = DispatchThread.current();
        MemoryScope scope = new MemoryScope(t, MemoryThread.category(t));
        MemoryThread.setCategory(t, category);
        return scope;
    }

    /** Returns the calling thread's memory category: that of the innermost open scope, else {@code UNKNOWN}. */
    public static MemoryCategory current() {
        return MemoryThread.category(DispatchThread.current());
    }

    /** Restores the category that was current when this scope was entered. */
    @Override
    public void close() {
        DispatchThread t = thread;
        if (t != null) {
            MemoryThread.setCategory(t, previous);
            thread = null;
        }
    }
}
