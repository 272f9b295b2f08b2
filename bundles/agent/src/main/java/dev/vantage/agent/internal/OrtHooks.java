package dev.vantage.agent.internal;

import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.WeakHashMap;

import dev.vantage.agent.bootstrap.Bridge;
import dev.vantage.agent.bootstrap.Scope;
import dev.vantage.device.onnxruntime.AdoptedModel;
import dev.vantage.device.onnxruntime.OrtProfiling;
import dev.vantage.device.onnxruntime.OrtTypes;
import dev.vantage.profiler.api.RecordFunction;

/**
 * The application's ONNX Runtime sessions: each session created while the agent is loaded is adopted into the ONNX
 * Runtime device ({@link OrtProfiling#adopt}), which makes a profiling session of its model for every window that
 * records {@code ORT}; each {@code run} of the application, while a profile records, goes to that session (its
 * {@code ort::run} and nodes recorded by the device) or, for a session created before the agent or while no window
 * records {@code ORT}, is recorded here as the CPU op {@code ort::run} around the application's own run.
 *
 * <p>Thread-safe. The sessions are held weakly; an adopted model is closed when the application closes its session.
 */
final class OrtHooks {

    /** What profiles call a session the agent saw no creation of. */
    static final String UNKNOWN = "a session created before the agent";

    /** An application session: what profiles call it, and its model as the device adopted it, if it did. */
    private record AppSession(String name, AdoptedModel adopted) {
    }

    private final OrtProfiling device;
    private final Calls calls;
    private final Map<Object, AppSession> sessions = Collections.synchronizedMap(new WeakHashMap<>());
    private volatile String failure;
    private volatile boolean toldUnsupported;

    OrtHooks(OrtProfiling device, Calls calls) {
        this.device = device;
        this.calls = calls;
    }

    /** A session of the application was created, with its constructor's arguments, by a class of the application. */
    void created(Object session, Object[] arguments, String creator) {
        if (arguments.length < 2) {
            return;
        }
        AppOrt ort;
        try {
            ort = AppOrt.of(session);
        } catch (IllegalStateException e) {
            if (!toldUnsupported) {
                toldUnsupported = true;
                System.err.println("vantage-agent: the application's ONNX Runtime is " + e.getMessage()
                        + "; its runs are not recorded");
            }
            return;
        }
        Object environment = arguments[0];
        Object model = arguments[1];
        Object options = null;
        for (Object a : arguments) {
            if (ort.optionsClass().isInstance(a)) {
                options = a;
            }
        }
        String name = name(model, creator);
        List<Object[]> optionCalls = options == null ? List.of() : Bridge.optionCalls(options);
        AdoptedModel adopted = device.adopt(new AppModel(ort, environment, model, optionCalls, name));
        AppSession previous = sessions.put(session, new AppSession(name, adopted));
        if (previous != null && previous.adopted() != null) {
            previous.adopted().close();
        }
    }

    /** The application closes a session. */
    void closed(Object session) {
        AppSession s = sessions.remove(session);
        if (s != null && s.adopted() != null) {
            s.adopted().close();
        }
    }

    /** A run of the application begins; see the class's description. */
    Scope entered(Object session, String method, Object[] arguments) {
        CallState t = CallState.current();
        if (t.runs > 0) {
            // an overload the application's run calls: recorded once, outermost
            return null;
        }
        RunScope scope = new RunScope(t);
        t.runs++;
        scope.step = calls.endsStep(t, 0);
        if (!RecordFunction.recording()) {
            return scope;
        }
        AppSession s = sessions.get(session);
        AppOrt ort = AppOrt.of(session);
        AppModel.Call call = new AppModel.Call(ort.sessionMethod(method), arguments);
        if (s != null && s.adopted() != null) {
            try {
                Optional<Object> result = s.adopted().run(call);
                if (result.isPresent()) {
                    scope.result = result.get();
                    return scope;
                }
            } catch (Exception | LinkageError e) {
                // the profiling session failed the call: the application's own session runs it, recorded below
                if (failure == null) {
                    failure = (s.name() + ": " + e).replace('\n', ' ');
                }
            }
        }
        List<?> inputs = AppModel.inputs(call);
        long[][] shapes = new long[inputs.size()][];
        String[] types = new String[inputs.size()];
        for (int i = 0; i < shapes.length; i++) {
            shapes[i] = ort.shape(inputs.get(i));
            types[i] = OrtTypes.torchName(ort.type(inputs.get(i)));
        }
        scope.op = RecordFunction.op("ort::run", Map.of("ORT session", s == null ? UNKNOWN : s.name()), shapes,
                types);
        return scope;
    }

    /** The first failure of a profiling session's run, or null. */
    String failure() {
        return failure;
    }

    /** What profiles call a session's model: its file's name, or what it was made from and by whom. */
    static String name(Object model, String creator) {
        if (model instanceof String path) {
            int slash = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
            return path.substring(slash + 1);
        }
        long bytes = model instanceof byte[] b ? b.length : model instanceof ByteBuffer buffer ? buffer.remaining()
                : -1;
        String by = creator == null || creator.isEmpty() ? "the application"
                : creator.substring(creator.lastIndexOf('.') + 1);
        return "model of " + String.format(Locale.ROOT, "%.1f MB", bytes / 1e6) + " from " + by;
    }


    /** A run's scope: its {@code ort::run} when recorded here, its result when the device ran it. */
    private final class RunScope extends Scope {
        private final CallState thread;
        private RecordFunction op;
        private Object result;
        private boolean step;
        private boolean closed;

        RunScope(CallState thread) {
            this.thread = thread;
        }

        @Override
        public Object result() {
            return result;
        }

        @Override
        protected void exit() {
            if (closed) {
                return;
            }
            closed = true;
            thread.runs--;
            try {
                if (op != null) {
                    op.close();
                }
            } finally {
                calls.exited(thread, step);
            }
        }
    }
}
