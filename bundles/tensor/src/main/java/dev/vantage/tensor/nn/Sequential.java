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

    /**
     * Runs the layers in order. Each intermediate result is closed once the next layer has used it, as torch frees
     * one when its last reference goes: what the backward pass needs of it, autograd saved.
     */
    @Override
    public Tensor forward(Tensor x) {
        Tensor y = x;
        for (Module m : layers) {
            Tensor next = m.forward(y);
            if (y != x && y != next) {
                y.close();
            }
            y = next;
        }
        return y;
    }
}
