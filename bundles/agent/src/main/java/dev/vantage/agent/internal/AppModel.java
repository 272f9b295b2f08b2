package dev.vantage.agent.internal;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.vantage.agent.bootstrap.Bridge;
import dev.vantage.device.onnxruntime.ForeignModel;
import dev.vantage.device.onnxruntime.ForeignSession;

/**
 * A model the application created an ONNX Runtime session of, as the ONNX Runtime device adopts it: its profiling
 * sessions are made by the application's own ONNX Runtime, from the same model (the path, or the very bytes the
 * application gave) with the same options (the application's calls on its {@code SessionOptions}, replayed on new
 * ones, but for profiling and the optimized model's file, which are the profiling session's own), on the thread
 * that asks, marked as the agent's own so that their creation and runs are not recorded as the application's.
 */
final class AppModel implements ForeignModel {

    /** Option calls a profiling session does not replay: its profiling is its own, and it writes no model file. */
    private static final Set<String> NOT_REPLAYED = Set.of("enableProfiling", "disableProfiling",
            "setOptimizedModelFilePath");

    private final AppOrt ort;
    private final Object environment;
    private final Object model;
    private final List<Object[]> calls;
    private final String name;
    private final String version;

    AppModel(AppOrt ort, Object environment, Object model, List<Object[]> optionCalls, String name) {
        this.ort = ort;
        this.environment = environment;
        this.model = model;
        List<Object[]> replayed = new ArrayList<>();
        for (Object[] call : optionCalls) {
            String method = (String) call[0];
            if (!NOT_REPLAYED.contains(method.substring(0, method.indexOf('(')))) {
                replayed.add(call);
            }
        }
        this.calls = List.copyOf(replayed);
        this.name = name;
        this.version = ort.version(environment);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String runtimeVersion() {
        return version;
    }

    @Override
    public ForeignSession openProfiling(String profilePrefix) throws Exception {
        Bridge.beginOwn();
        try {
            return new Session(ort.createProfiled(environment, model, calls, profilePrefix));
        } finally {
            Bridge.endOwn();
        }
    }

    /** One application call of a session's {@code run}: the method called and its arguments. */
    record Call(Method method, Object[] arguments) {
    }

    /** A profiling session of the application's ONNX Runtime. */
    private final class Session implements ForeignSession {
        private final Object session;

        Session(Object session) {
            this.session = session;
        }

        @Override
        public long profilingStartNanos() throws Exception {
            Bridge.beginOwn();
            try {
                return ort.profilingStart(session);
            } finally {
                Bridge.endOwn();
            }
        }

        @Override
        public Object run(Object call) throws Exception {
            Call c = (Call) call;
            Bridge.beginOwn();
            try {
                return AppOrt.invoke(c.method(), session, c.arguments());
            } finally {
                Bridge.endOwn();
            }
        }

        @Override
        public long[][] inputShapes(Object call) {
            List<?> inputs = inputs(call);
            long[][] shapes = new long[inputs.size()][];
            for (int i = 0; i < shapes.length; i++) {
                shapes[i] = ort.shape(inputs.get(i));
            }
            return shapes;
        }

        @Override
        public String[] inputTypes(Object call) {
            List<?> inputs = inputs(call);
            String[] types = new String[inputs.size()];
            for (int i = 0; i < types.length; i++) {
                types[i] = ort.type(inputs.get(i));
            }
            return types;
        }

        @Override
        public String endProfiling() throws Exception {
            Bridge.beginOwn();
            try {
                return ort.endProfiling(session);
            } finally {
                Bridge.endOwn();
            }
        }

        @Override
        public void close() throws Exception {
            Bridge.beginOwn();
            try {
                ort.close(session);
            } finally {
                Bridge.endOwn();
            }
        }
    }

    /** A run's inputs, in the order of its map. */
    static List<?> inputs(Object call) {
        Object[] arguments = ((Call) call).arguments();
        return arguments.length > 0 && arguments[0] instanceof Map<?, ?> m ? new ArrayList<>(m.values()) : List.of();
    }
}
