package dev.vantage.device.onnxruntime.internal;

/**
 * The profiling sessions ({@link Twin}s) of one model, whichever ONNX Runtime runs it: where its runs go while a
 * window records, and the hand-over from one twin to the next in a long window. A {@link ProfiledSessionImpl} (the
 * embedded ONNX Runtime's) and an {@link AdoptedModelImpl} (an application's) each hold one.
 *
 * <p>Routing: {@link #twin} is the one field a run reads; null means the model's own session. A window prepares a
 * twin ({@link #prepare}, at the profile's prepare step, since creating an ONNX Runtime session takes a while),
 * routes runs to it when it starts ({@link #route}) and takes it back when it stops ({@link #unroute}). Every
 * change is made under this object's monitor; runs take no lock of ours.
 *
 * <p>Rotation: ONNX Runtime stops recording a session at 1,000,000 events and cannot restart there, so a twin hands
 * over to a fresh one after a number of runs ({@link #maxRuns}) that keeps it under the cap: a background task
 * makes the next twin, swaps it in between two runs and ends the old one, whose file the window converts with the
 * rest. The first twin of a model hands over after {@link #FIRST_TWIN_RUNS} runs (configurable); once a file has told
 * how many events a run makes, a twin takes as many runs as fill {@link OrtRuntime#eventsPerSession()} events (a
 * quarter of the cap by default, at most nine tenths of it).
 */
final class ModelTwins {

    /** Runs of a twin while the model's events per run are unknown. */
    static final int FIRST_TWIN_RUNS = 512;

    private final OrtRuntime runtime;
    private final ProfilingSession.Model model;
    private volatile Twin twin;
    /** Made by {@link #prepare}, routed by {@link #route}; guarded by this. */
    private Twin pending;
    /** The most ONNX Runtime events one run made, from converted files; 0 while unknown. */
    private volatile long eventsPerRun;
    private boolean closed;

    ModelTwins(OrtRuntime runtime, ProfilingSession.Model model) {
        this.runtime = runtime;
        this.model = model;
    }

    /** What profiles call the model. */
    String name() {
        return model.name();
    }

    /** The version of the ONNX Runtime that runs the model. */
    String version() {
        return model.runtimeVersion();
    }

    /**
     * Runs a call on the twin of the window that records the model now, as {@code ort::run}.
     *
     * @return the call's result, or null when no window records the model (run the model's own session then)
     */
    <T, E extends Exception> T runOnTwin(ProfilingSession.Call<T, E> call) throws E {
        while (true) {
            Twin t = twin;
            if (t == null) {
                return null;
            }
            if (t.enter()) {
                try {
                    return t.run(call);
                } finally {
                    t.exit();
                }
            }
            // the twin retired between the read and the entry: read the route again
        }
    }

    /** Runs a twin of a window should take before it hands over. */
    int maxRuns() {
        long perRun = eventsPerRun;
        if (perRun <= 0) {
            return runtime.firstSessionRuns();
        }
        // at most nine tenths of the cap: room for the session's set-up events and for runs that make more events
        // than the largest seen (a model with control flow)
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, runtime.eventsPerSession() / perRun));
    }

    /** Notes how many events a run of this model made; twins from now on, and the current one, take more runs. */
    void learnEventsPerRun(long events) {
        if (events > eventsPerRun) {
            eventsPerRun = events;
        }
        Twin t = twin;
        if (t != null) {
            t.maxRuns = Math.max(t.maxRuns, maxRuns());
        }
    }

    /**
     * Makes a twin for a window, not routed yet.
     *
     * @throws Exception if ONNX Runtime cannot create the profiling session
     */
    void prepare(OrtWindow window) throws Exception {
        Twin t = newTwin(window);
        Twin old;
        synchronized (this) {
            if (closed) {
                t.retire();
                window.ended(t);
                return;
            }
            old = pending;
            pending = t;
        }
        if (old != null) {
            old.retire();
            old.window.ended(old);
        }
    }

    private Twin newTwin(OrtWindow window) throws Exception {
        ProfilingSession s = model.openProfiling(window.profilePrefix(model.name()));
        try {
            return new Twin(this, window, s, maxRuns());
        } catch (Exception | LinkageError e) {
            s.close();
            throw e;
        }
    }

    /** Routes runs to the twin prepared for a window. */
    synchronized void route(OrtWindow window) {
        if (pending != null && pending.window == window && !closed) {
            twin = pending;
            pending = null;
        }
    }

    /**
     * Takes a window's twins back: runs go to the model's own session again, and every twin of the window (routed or
     * only prepared) is retired and handed to the window to end.
     */
    void unroute(OrtWindow window) {
        Twin routed = null;
        Twin prepared = null;
        synchronized (this) {
            if (twin != null && twin.window == window) {
                routed = twin;
                twin = null;
            }
            if (pending != null && pending.window == window) {
                prepared = pending;
                pending = null;
            }
        }
        for (Twin t : new Twin[] {routed, prepared}) {
            if (t != null) {
                t.retire();
                window.ended(t);
            }
        }
    }

    /**
     * Hands a twin that reached its runs over to a fresh one, in the background: the next twin is made, swapped
     * in between two runs, and the old one retired and given to its window.
     */
    void rotate(Twin old) {
        old.window.background(() -> {
            Twin next;
            try {
                next = newTwin(old.window);
            } catch (Exception | LinkageError e) {
                old.window.error("could not make the next profiling session of " + name() + " after "
                        + old.runCount() + " runs (" + e.getMessage() + "); this session's runs from then on are"
                        + " recorded on the same one, up to ONNX Runtime's cap");
                return;
            }
            boolean swapped;
            synchronized (this) {
                swapped = twin == old && !closed;
                if (swapped) {
                    twin = next;
                }
            }
            if (swapped) {
                old.window.rotated();
                old.retire();
                old.window.ended(old);
            } else {
                next.retire();
                next.window.ended(next);
            }
        });
    }

    /**
     * Stops routing for good: the twins are retired and handed to their windows, which keep what they ran.
     *
     * @return false if it was closed already
     */
    boolean close() {
        Twin routed;
        Twin prepared;
        synchronized (this) {
            if (closed) {
                return false;
            }
            closed = true;
            routed = twin;
            prepared = pending;
            twin = null;
            pending = null;
        }
        runtime.closed(this);
        for (Twin t : new Twin[] {routed, prepared}) {
            if (t != null) {
                t.retire();
                t.window.ended(t);
            }
        }
        return true;
    }
}
