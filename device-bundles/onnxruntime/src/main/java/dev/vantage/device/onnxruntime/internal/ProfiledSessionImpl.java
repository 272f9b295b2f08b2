package dev.vantage.device.onnxruntime.internal;

import java.nio.file.Path;
import java.util.Map;

import ai.onnxruntime.OnnxTensorLike;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.vantage.device.onnxruntime.ProfiledSession;
import dev.vantage.device.onnxruntime.SessionOptionsFactory;

/**
 * A {@link ProfiledSession}: a plain ONNX Runtime session, and while a window records, the {@link Twin} the runs go
 * to.
 *
 * <p>Routing: {@link #twin} is the one field a run reads; null means the plain session. A window prepares a twin
 * ({@link #prepare}, at the profile's prepare step, since creating an ONNX Runtime session takes a while), routes
 * runs to it when it starts ({@link #route}) and takes it back when it stops ({@link #unroute}). Every change is
 * made under this object's monitor; runs take no lock of ours.
 *
 * <p>Rotation: ONNX Runtime stops recording a session at 1,000,000 events and cannot restart there, so a twin hands
 * over to a fresh one after a number of runs ({@link #maxRuns}) that keeps it under the cap: a background task
 * makes the next twin, swaps it in between two runs and ends the old one, whose file the window converts with the
 * rest. The first twin of a model hands over after {@link #FIRST_TWIN_RUNS} runs (configurable); once a file has told
 * how many events a run makes, a twin takes as many runs as fill {@link OrtRuntime#eventsPerSession()} events (a
 * quarter of the cap by default, at most nine tenths of it).
 */
final class ProfiledSessionImpl implements ProfiledSession {

    /** Runs of a twin while the model's events per run are unknown. */
    static final int FIRST_TWIN_RUNS = 512;

    private final OrtRuntime runtime;
    private final String name;
    private final Path modelPath;
    private final byte[] modelBytes;
    private final SessionOptionsFactory options;
    private final OrtSession plain;
    private volatile Twin twin;
    /** Made by {@link #prepare}, routed by {@link #route}; guarded by this. */
    private Twin pending;
    /** The most ONNX Runtime events one run made, from converted files; 0 while unknown. */
    private volatile long eventsPerRun;
    private boolean closed;

    ProfiledSessionImpl(OrtRuntime runtime, String name, Path modelPath, byte[] modelBytes,
            SessionOptionsFactory options) throws OrtException {
        this.runtime = runtime;
        this.name = name;
        this.modelPath = modelPath;
        this.modelBytes = modelBytes;
        this.options = options;
        this.plain = create(null);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public OrtSession session() {
        return plain;
    }

    @Override
    public OrtSession.Result run(Map<String, ? extends OnnxTensorLike> inputs) throws OrtException {
        return run(inputs, null);
    }

    @Override
    public OrtSession.Result run(Map<String, ? extends OnnxTensorLike> inputs, OrtSession.RunOptions runOptions)
            throws OrtException {
        while (true) {
            Twin t = twin;
            if (t == null) {
                return runOptions == null ? plain.run(inputs) : plain.run(inputs, runOptions);
            }
            if (t.enter()) {
                try {
                    return t.run(inputs, runOptions);
                } finally {
                    t.exit();
                }
            }
            // the twin retired between the read and the entry: read the route again
        }
    }

    /** Creates an ONNX Runtime session of the model; with profiling on when a prefix is given. */
    private OrtSession create(String profilePrefix) throws OrtException {
        OrtEnvironment env = runtime.environment();
        OrtSession.SessionOptions o = options.create();
        try {
            if (profilePrefix != null) {
                o.enableProfiling(profilePrefix);
            }
            return modelPath != null ? env.createSession(modelPath.toString(), o) : env.createSession(modelBytes, o);
        } finally {
            o.close();
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
     * @throws OrtException if ONNX Runtime cannot create the profiling session
     */
    void prepare(OrtWindow window) throws OrtException {
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

    private Twin newTwin(OrtWindow window) throws OrtException {
        OrtSession s = create(window.profilePrefix(name));
        try {
            return new Twin(this, window, s, maxRuns());
        } catch (OrtException | RuntimeException e) {
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
     * Takes a window's twins back: runs go to the plain session again, and every twin of the window (routed or
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
            } catch (OrtException | RuntimeException e) {
                old.window.error("could not make the next profiling session of " + name + " after "
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

    @Override
    public void close() throws OrtException {
        Twin routed;
        Twin prepared;
        synchronized (this) {
            if (closed) {
                return;
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
        plain.close();
    }
}
