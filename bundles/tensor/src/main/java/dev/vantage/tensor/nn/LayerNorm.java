package dev.vantage.tensor.nn;

import dev.vantage.tensor.Functional;
import dev.vantage.tensor.Tensor;

/** Layer normalisation over the last dimension, with a learned scale (ones) and shift (zeros). */
public final class LayerNorm extends Module {

    private final long size;
    private final double eps;

    /** @param size the size of the last dimension */
    public LayerNorm(int size) {
        this.size = size;
        this.eps = 1e-5;
        register("weight", Tensor.ones(size));
        register("bias", Tensor.zeros(size));
    }

    @Override
    public Tensor forward(Tensor x) {
        return Functional.layerNorm(x, new long[] {size}, param("weight"), param("bias"), eps);
    }
}
