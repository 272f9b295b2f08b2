package dev.vantage.tensor;

/**
 * Whether ops on this thread are recorded for the backward pass, like torch's {@code no_grad}:
 * <pre>{@code
 * try (GradMode.Scope off = GradMode.disabled()) {
 *     model.forward(x);   // nothing recorded, no graph kept
 * }
 * }</pre>
 * Scopes nest; recording is on by default on every thread. The state is the thread's {@code OpThread}, which an op
 * reads once for all it needs.
 */
public final class GradMode {

    private GradMode() {
    }

    /** Returns true when ops on this thread are recorded. */
    public static boolean isEnabled() {
        return OpThread.current().gradEnabled();
    }

    /** Turns recording off on this thread until the scope closes. */
    public static Scope disabled() {
        OpThread t = OpThread.current();
        t.gradOff++;
        return new Scope(t);
    }

    /** An open {@link #disabled()} scope; close it on the thread that opened it. Closing twice does nothing. */
    public static final class Scope implements AutoCloseable {
        private OpThread thread;

        private Scope(OpThread thread) {
            this.thread = thread;
        }

        @Override
        public void close() {
            if (thread != null) {
                thread.gradOff--;
                thread = null;
            }
        }
    }
}
