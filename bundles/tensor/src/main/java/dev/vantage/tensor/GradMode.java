package dev.vantage.tensor;

/**
 * Whether ops on this thread are recorded for the backward pass, like torch's {@code no_grad}:
 * <pre>{@code
 * try (GradMode.Scope off = GradMode.disabled()) {
 *     model.forward(x);   // nothing recorded, no graph kept
 * }
 * }</pre>
 * Scopes nest; recording is on by default on every thread.
 */
public final class GradMode {

    private static final ThreadLocal<int[]> DISABLED = ThreadLocal.withInitial(() -> new int[1]);

    private GradMode() {
    }

    /** Returns true when ops on this thread are recorded. */
    public static boolean isEnabled() {
        return DISABLED.get()[0] == 0;
    }

    /** Turns recording off on this thread until the scope closes. */
    public static Scope disabled() {
        int[] depth = DISABLED.get();
        depth[0]++;
        return new Scope(depth);
    }

    /** An open {@link #disabled()} scope; close it on the thread that opened it. Closing twice does nothing. */
    public static final class Scope implements AutoCloseable {
        private int[] depth;

        private Scope(int[] depth) {
            this.depth = depth;
        }

        @Override
        public void close() {
            if (depth != null) {
                depth[0]--;
                depth = null;
            }
        }
    }
}
