package dev.vantage.tensor.nn;

import dev.vantage.tensor.Tensor;

/** Modules applied one after another, named {@code 0}, {@code 1}, ... as in torch. */
public final class Sequential extends Module {

    private final Module[] layers;

    /** @param layers the modules in order */
    public Sequential(Module... layers) {
        this.layers = layers.clone();
        for (int i = 0; i < layers.length; i++) {
            register(Integer.toString(i), layers[i]);
        }
    }

    @Override
    public Tensor forward(Tensor x) {
        Tensor y = x;
        for (Module m : layers) {
            y = m.forward(y);
        }
        return y;
    }
}
