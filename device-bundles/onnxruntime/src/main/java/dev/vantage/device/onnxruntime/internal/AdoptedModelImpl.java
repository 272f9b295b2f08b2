package dev.vantage.device.onnxruntime.internal;

import java.util.Objects;
import java.util.Optional;

import dev.vantage.device.onnxruntime.AdoptedModel;
import dev.vantage.device.onnxruntime.ForeignModel;
import dev.vantage.device.onnxruntime.ForeignSession;
import dev.vantage.device.onnxruntime.OrtTypes;

/**
 * An {@link AdoptedModel}: the {@link ModelTwins} of a model that another ONNX Runtime runs, whose profiling
 * sessions its {@link ForeignModel} makes. The application runs its own session; a window's twin takes the calls
 * handed to {@link #run} while the window records.
 */
final class AdoptedModelImpl extends TwinnedModel implements AdoptedModel {

    AdoptedModelImpl(OrtRuntime runtime, ForeignModel model) {
        super(runtime, new Foreign(Objects.requireNonNull(model, "model")));
    }

    @Override
    public Optional<Object> run(Object call) throws Exception {
        return Optional.ofNullable(twins().runOnTwin(new ProfilingSession.Call<Object, Exception>() {
            @Override
            public Object run(ProfilingSession session) throws Exception {
                return Objects.requireNonNull(((Session) session).foreign.run(call),
                        "the adopted model's session returned no result");
            }

            @Override
            public long[][] shapes(ProfilingSession session) {
                return ((Session) session).foreign.inputShapes(call);
            }

            @Override
            public String[] types(ProfilingSession session) {
                String[] types = ((Session) session).foreign.inputTypes(call);
                for (int i = 0; i < types.length; i++) {
                    types[i] = OrtTypes.torchName(types[i]);
                }
                return types;
            }
        }));
    }

    @Override
    public void close() {
        twins().close();
    }

    /** The adopted model as the twins see it. */
    private record Foreign(ForeignModel model) implements ProfilingSession.Model {

        @Override
        public String name() {
            return model.name();
        }

        @Override
        public String runtimeVersion() {
            return model.runtimeVersion();
        }

        @Override
        public ProfilingSession openProfiling(String profilePrefix) throws Exception {
            return new Session(Objects.requireNonNull(model.openProfiling(profilePrefix),
                    "the adopted model made no profiling session"));
        }
    }

    /** A profiling session the adopted model made. */
    private record Session(ForeignSession foreign) implements ProfilingSession {

        @Override
        public long profilingStartNanos() throws Exception {
            return foreign.profilingStartNanos();
        }

        @Override
        public String endProfiling() throws Exception {
            return foreign.endProfiling();
        }

        @Override
        public void close() throws Exception {
            foreign.close();
        }
    }
}
