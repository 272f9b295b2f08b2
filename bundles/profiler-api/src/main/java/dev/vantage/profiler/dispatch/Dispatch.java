package dev.vantage.profiler.dispatch;

import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;

/**
 * The fast path between a runtime and the dispatch hooks. A runtime calls {@link #hooks()} around every op; when
 * nothing listens it gets {@code null} and runs the kernel directly, so the cost of an idle profiler is one field
 * read and a branch:
 * <pre>{@code
 * DispatchHook[] hooks = Dispatch.hooks();
 * if (hooks == null) {
 *     return kernel.apply(a, b);
 * }
 * Dispatch.enter(hooks, call, handles);
 * try {
 *     return kernel.apply(a, b);
 * } finally {
 *     Dispatch.exit(hooks, call, handles);
 * }
 * }</pre>
 * The profiler core is the single owner that publishes the hooks: it {@link #claim claims} the fast path when it
 * activates and publishes only the hooks that have something to do (its recorder only while a profile records).
 */
public final class Dispatch {

    private static final AtomicReference<Object> OWNER = new AtomicReference<>();
    private static final CopyOnWriteArrayList<String> HIDDEN_FRAMES = new CopyOnWriteArrayList<>(
            new String[] {"java.", "jdk.", "sun.", "org.apache.felix.", "org.osgi.", "dev.vantage.profiler."});
    private static volatile DispatchHook[] hooks;
    private static volatile BiConsumer<DispatchHook, Throwable> onFailure;

    private Dispatch() {
    }

    /** Returns the hooks to call around an op, or {@code null} when none is listening. Never an empty array. */
    public static DispatchHook[] hooks() {
        return hooks;
    }

    /**
     * Calls {@link DispatchHook#onEnter} of every hook in order. A hook that throws is reported to the owner and
     * skipped; the op goes on.
     *
     * @param hooks what {@link #hooks()} returned
     * @param call the op
     * @param handles receives each hook's handle; at least {@code hooks.length} long
     */
    public static void enter(DispatchHook[] hooks, OpCall call, long[] handles) {
        if (hooks.length == 1) {
            // the common case, a profile's recorder alone: a call site of its own, so it stays monomorphic even
            // when other hooks come and go through the loop below
            DispatchHook only = hooks[0];
            try {
                handles[0] = only.onEnter(call);
            } catch (RuntimeException | LinkageError | AssertionError e) {
                handles[0] = -1;
                report(only, e);
            }
            return;
        }
        for (int i = 0; i < hooks.length; i++) {
            try {
                handles[i] = hooks[i].onEnter(call);
            } catch (RuntimeException | LinkageError | AssertionError e) {
                handles[i] = -1;
                report(hooks[i], e);
            }
        }
    }

    /**
     * Calls {@link DispatchHook#onExit} of every hook in reverse order, with the handles {@link #enter} stored. A
     * hook that throws is reported to the owner and skipped.
     */
    public static void exit(DispatchHook[] hooks, OpCall call, long[] handles) {
        if (hooks.length == 1) {
            DispatchHook only = hooks[0];
            try {
                only.onExit(call, handles[0]);
            } catch (RuntimeException | LinkageError | AssertionError e) {
                report(only, e);
            }
            return;
        }
        for (int i = hooks.length - 1; i >= 0; i--) {
            try {
                hooks[i].onExit(call, handles[i]);
            } catch (RuntimeException | LinkageError | AssertionError e) {
                report(hooks[i], e);
            }
        }
    }

    private static void report(DispatchHook hook, Throwable error) {
        BiConsumer<DispatchHook, Throwable> handler = onFailure;
        if (handler != null) {
            handler.accept(hook, error);
        }
    }

    /**
     * Declares the classes of a runtime's own dispatch machinery, so that recorded stacks ({@code withStack}) show
     * the code that called an op rather than how the op was dispatched. A runtime calls this once for each of its
     * packages or classes.
     *
     * @param classNamePrefix a class name prefix, such as {@code com.example.runtime.internal.}; not empty
     * @throws IllegalArgumentException if the prefix is empty
     */
    public static void hideFramesOf(String classNamePrefix) {
        if (classNamePrefix == null || classNamePrefix.isEmpty()) {
            throw new IllegalArgumentException("class name prefix must not be empty");
        }
        HIDDEN_FRAMES.addIfAbsent(classNamePrefix);
    }

    /**
     * Returns true if a class belongs to the JDK, the OSGi framework, the profiler or a runtime's dispatch
     * machinery declared with {@link #hideFramesOf}.
     */
    public static boolean isHiddenFrame(String className) {
        for (String prefix : HIDDEN_FRAMES) {
            if (className.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Makes the caller the owner of the fast path. Called by the profiler core when it activates.
     *
     * @param failureHandler told about every hook that throws; must not throw itself
     * @return the token that {@link #publish} and {@link #release} require
     * @throws IllegalStateException if another owner holds the fast path
     */
    public static Object claim(BiConsumer<DispatchHook, Throwable> failureHandler) {
        Objects.requireNonNull(failureHandler, "failureHandler");
        Object token = new Object();
        if (!OWNER.compareAndSet(null, token)) {
            throw new IllegalStateException("the dispatch fast path is owned by another profiler core");
        }
        onFailure = failureHandler;
        return token;
    }

    /**
     * Replaces the published hooks.
     *
     * @param token what {@link #claim} returned
     * @param newHooks the hooks to call from now on; null or empty for none. The array is copied.
     * @throws IllegalStateException if the token is not the owner's
     */
    public static void publish(Object token, DispatchHook[] newHooks) {
        checkOwner(token);
        hooks = newHooks == null || newHooks.length == 0 ? null : newHooks.clone();
    }

    /**
     * Removes all hooks and gives up ownership.
     *
     * @throws IllegalStateException if the token is not the owner's
     */
    public static void release(Object token) {
        checkOwner(token);
        hooks = null;
        onFailure = null;
        OWNER.set(null);
    }

    private static void checkOwner(Object token) {
        if (token == null || OWNER.get() != token) {
            throw new IllegalStateException("not the owner of the dispatch fast path");
        }
    }
}
