package dev.vantage.device.onnxruntime.internal;

/**
 * What the embedded runtime's {@link ProfiledSessionImpl} and an adopted model's {@link AdoptedModelImpl} share: a
 * model whose runs go to its {@link ModelTwins} while a window records it.
 */
abstract class TwinnedModel {

    private final ModelTwins twins;

    TwinnedModel(OrtRuntime runtime, ProfilingSession.Model model) {
        this.twins = new ModelTwins(runtime, model);
    }

    /** The model's twins, which windows join. */
    final ModelTwins twins() {
        return twins;
    }

    /** What profiles call the model. */
    public final String name() {
        return twins.name();
    }
}
