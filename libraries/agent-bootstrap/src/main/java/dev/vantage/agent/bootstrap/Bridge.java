package dev.vantage.agent.bootstrap;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Where the calls woven into the application's classes go: static methods that hand each call to the platform's
 * {@link Hooks} and swallow every throwable, so that nothing the agent does reaches the application. Loaded by the
 * bootstrap class loader, so every class loader that delegates to it resolves the woven calls.
 *
 * <p>The platform boots after the application has started, so what must not be lost before its hooks are installed
 * is kept here: the sessions the application created (up to {@link #MAX_PENDING}, weakly) and the calls made on
 * each {@code SessionOptions} (which a profiling session of the same model replays). Runs and library calls made
 * before then are not recorded. With hooks installed, a woven call costs a volatile read and the hooks' own check.
 *
 * <p>Thread-safe. The methods without javadoc below are the woven code's; their names are part of the agent's
 * bytecode and change only with it.
 */
public final class Bridge {

    /** The family of LangChain4j's {@code EmbeddingModel.embed*}. */
    public static final int EMBEDDING_MODEL = 1;
    /** The family of DJL's {@code Predictor.predict} and {@code batchPredict}. */
    public static final int PREDICTOR = 2;
    /** The family of DJL's {@code HuggingFaceTokenizer} encodings. */
    public static final int TOKENIZER = 3;
    /** The family of the methods the user named as steps ({@code step=com.acme.Api#handle}). */
    public static final int STEP_METHOD = 4;

    /** Sessions created before the platform is up that are kept for it, at most. */
    public static final int MAX_PENDING = 256;
    /** Rounds of {@link #install} that adopt sessions before the hooks are published. */
    private static final int MAX_INSTALL_ROUNDS = 8;
    /** Calls kept per {@code SessionOptions}, at most; more are dropped (the profiling session then lacks them). */
    public static final int MAX_OPTION_CALLS = 256;

    private static volatile Hooks hooks;
    /** While hooks are not installed, woven calls wait for them until this {@code nanoTime}; 0: they do not wait. */
    private static volatile long holdUntilNanos;
    private static final Object LOCK = new Object();
    /** {weak session, constructor arguments, creator}; guarded by LOCK. */
    private static final List<Object[]> pending = new ArrayList<>();
    private static final Map<Object, List<Object[]>> optionCalls = Collections.synchronizedMap(new WeakHashMap<>());
    /** How deep each thread is in the agent's own calls into the application's classes. */
    private static final ThreadLocal<int[]> OWN = ThreadLocal.withInitial(() -> new int[1]);
    /** The agent's own calls under way in all threads, and whether more may begin; guarded by OWN_CALLS. */
    private static final Object OWN_CALLS = new Object();
    private static int ownInside;
    private static boolean ownClosed;

    private Bridge() {
    }

    /**
     * Installs the platform's hooks: first hands them the sessions created so far that still exist (the hooks
     * adopt them; a capture that records already makes their profiling sessions), then publishes them, so that the
     * calls a hold keeps waiting go on only once their sessions are known.
     *
     * @throws IllegalStateException if other hooks are installed
     */
    public static void install(Hooks h) {
        for (int round = 0; ; round++) {
            List<Object[]> created;
            boolean published = false;
            synchronized (LOCK) {
                if (hooks != null && hooks != h) {
                    throw new IllegalStateException("the agent's hooks are installed already");
                }
                // sessions the application creates while earlier ones are adopted are taken next round; after the
                // last round the hooks are published first and the rest handed over after
                if (pending.isEmpty() || round == MAX_INSTALL_ROUNDS) {
                    hooks = h;
                    holdUntilNanos = 0;
                    LOCK.notifyAll();
                    published = true;
                }
                created = new ArrayList<>(pending);
                pending.clear();
            }
            for (Object[] p : created) {
                Object session = ((WeakReference<?>) p[0]).get();
                if (session != null) {
                    try {
                        h.sessionCreated(session, (Object[]) p[1], (String) p[2]);
                    } catch (Throwable t) {
                        // one session the hooks cannot take does not keep the others out
                    }
                }
            }
            if (published) {
                return;
            }
        }
    }

    /**
     * Makes the application's recorded calls ({@code run}s and library calls) wait for the hooks until they are
     * installed, at most {@code millis} from now: a capture that starts with the application then misses none of
     * them while the platform boots. After that time, or {@link #release()}, they go on unrecorded.
     */
    public static void holdUntilInstalled(long millis) {
        holdUntilNanos = System.nanoTime() + Math.max(1, millis) * 1_000_000L;
    }

    /** Ends a hold: calls waiting for hooks go on (the platform failed to start). */
    public static void release() {
        synchronized (LOCK) {
            holdUntilNanos = 0;
            LOCK.notifyAll();
        }
    }

    /**
     * The hooks, after waiting for them while a hold lasts. An interrupt ends the wait and stays set for the
     * application.
     */
    private static Hooks awaitHooks() {
        Hooks h = hooks;
        if (h != null || holdUntilNanos == 0) {
            return h;
        }
        synchronized (LOCK) {
            long left;
            while (hooks == null && holdUntilNanos != 0 && (left = holdUntilNanos - System.nanoTime()) > 0) {
                try {
                    LOCK.wait(Math.max(1, left / 1_000_000L));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return hooks;
                }
            }
            if (hooks == null) {
                holdUntilNanos = 0;
            }
            return hooks;
        }
    }

    /** Removes hooks if they are the installed ones; calls from now on are not recorded. */
    public static void uninstall(Hooks h) {
        synchronized (LOCK) {
            if (hooks == h) {
                hooks = null;
            }
        }
    }

    /** The application exits: the installed hooks end what they record, writing it; returns when they are done. */
    public static void exiting() {
        try {
            Hooks h = hooks;
            if (h != null) {
                h.exiting();
            }
        } catch (Throwable t) {
            // the application exits as it would without the agent
        }
    }

    /** Returns the installed hooks, or null. */
    public static Hooks hooks() {
        return hooks;
    }

    /**
     * Marks the calling thread as making a call of the agent's own into the application's classes (creating,
     * running or ending a profiling session of its ONNX Runtime): the woven code reports none of it until
     * {@link #endOwn}. Nests. Once {@link #closeOwn} was called (the application exits), no such call begins.
     *
     * @throws IllegalStateException once the application exits
     */
    public static void beginOwn() {
        synchronized (OWN_CALLS) {
            if (ownClosed) {
                throw new IllegalStateException("the application is exiting");
            }
            ownInside++;
        }
        OWN.get()[0]++;
    }

    /** Ends what {@link #beginOwn} began. */
    public static void endOwn() {
        OWN.get()[0]--;
        synchronized (OWN_CALLS) {
            if (--ownInside == 0) {
                OWN_CALLS.notifyAll();
            }
        }
    }

    /**
     * The application exits: refuses the agent's own calls from now on and waits, at most {@code millis}, for those
     * under way, so that no thread of the agent is inside the application's ONNX Runtime when the process exits (its
     * natives' exit handlers would tear ONNX Runtime down under it).
     */
    public static void closeOwn(long millis) {
        synchronized (OWN_CALLS) {
            ownClosed = true;
            long deadline = System.nanoTime() + millis * 1_000_000L;
            long left;
            while (ownInside > 0 && (left = deadline - System.nanoTime()) > 0) {
                try {
                    OWN_CALLS.wait(Math.max(1, left / 1_000_000L));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private static boolean own() {
        return OWN.get()[0] > 0;
    }

    /**
     * Returns the calls made so far on a {@code SessionOptions}, oldest first, each as {method name and descriptor,
     * arguments}: a copy.
     */
    public static List<Object[]> optionCalls(Object options) {
        List<Object[]> calls = optionCalls.get(options);
        if (calls == null) {
            return List.of();
        }
        synchronized (calls) {
            return List.copyOf(calls);
        }
    }

    public static void sessionCreated(Object session, Object[] arguments) {
        try {
            if (own()) {
                return;
            }
            String creator = creator();
            Hooks h = hooks;
            if (h == null) {
                synchronized (LOCK) {
                    h = hooks;
                    if (h == null) {
                        if (pending.size() < MAX_PENDING) {
                            pending.add(new Object[] {new WeakReference<>(session), arguments, creator});
                        }
                        return;
                    }
                }
            }
            h.sessionCreated(session, arguments, creator);
        } catch (Throwable t) {
            // nothing reaches the application
        }
    }

    /** The application's class that creates a session: the first caller outside ONNX Runtime, the JDK and this. */
    private static String creator() {
        return StackWalker.getInstance().walk(frames -> frames.map(StackWalker.StackFrame::getClassName)
                .filter(c -> !c.startsWith("ai.onnxruntime.") && !c.startsWith("dev.vantage.agent.")
                        && !c.startsWith("java.") && !c.startsWith("jdk.") && !c.startsWith("sun."))
                .findFirst().orElse(""));
    }

    public static void sessionClosed(Object session) {
        try {
            Hooks h = hooks;
            if (h != null && !own()) {
                h.sessionClosed(session);
            }
        } catch (Throwable t) {
            // nothing reaches the application
        }
    }

    public static void optionsCalled(Object options, String method, Object[] arguments) {
        try {
            List<Object[]> calls = optionCalls.computeIfAbsent(options, o -> new ArrayList<>());
            synchronized (calls) {
                if (calls.size() < MAX_OPTION_CALLS) {
                    calls.add(new Object[] {method, arguments});
                }
            }
        } catch (Throwable t) {
            // nothing reaches the application
        }
    }

    public static Object runEntered(Object session, String method, Object[] arguments) {
        try {
            Hooks h = awaitHooks();
            return h == null || own() ? null : h.runEntered(session, method, arguments);
        } catch (Throwable t) {
            return null;
        }
    }

    public static Object callEntered(String name, int family, Object target) {
        try {
            Hooks h = awaitHooks();
            return h == null || own() ? null : h.callEntered(name, family, target);
        } catch (Throwable t) {
            return null;
        }
    }

    /**
     * Returns the call's result when the platform ran it itself (the woven method then returns it, if it is of the
     * method's return type, without running its body), else null.
     */
    public static Object result(Object scope) {
        try {
            return scope instanceof Scope s ? s.result() : null;
        } catch (Throwable t) {
            return null;
        }
    }

    public static void exited(Object scope) {
        try {
            if (scope instanceof Scope s) {
                s.exit();
            }
        } catch (Throwable t) {
            // nothing reaches the application
        }
    }
}
