package dev.vantage.tensor.nn;

import dev.vantage.tensor.Functional;
import dev.vantage.tensor.Tensor;

/** {@code y = x @ W.T + b}, initialised as torch does: uniform in {@code ±1/sqrt(in)}. */
public final class Linear extends Module {

    /**
     * @param in input features, 1 or more
     * @param out output features, 1 or more
     * @param bias whether to add a bias
     * @param seed seed of the initial weights
     */
    public Linear(int in, int out, boolean bias, long seed) {
        if (in < 1 || out < 1) {
            throw new IllegalArgumentException("Linear needs positive sizes, not " + in + " -> " + out);
        }
        float bound = (float) (1 / Math.sqrt(in));
        register("weight", Tensor.uniform(seed, -bound, bound, out, in));
        if (bias) {
            register("bias", Tensor.uniform(seed + 1, -bound, bound, out));
        }
    }

    @Override
    public Tensor forward(Tensor x) {
        return Functional.linear(x, param("weight"), param("bias"));
    }
}
