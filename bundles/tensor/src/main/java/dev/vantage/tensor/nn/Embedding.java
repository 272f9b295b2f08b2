package dev.vantage.tensor.nn;

import dev.vantage.tensor.Functional;
import dev.vantage.tensor.Tensor;

/** A lookup table of {@code count} vectors of size {@code dim}, initialised N(0, 1) as torch does. */
public final class Embedding extends Module {

    /**
     * @param count number of entries
     * @param dim size of each vector
     * @param seed seed of the initial table
     */
    public Embedding(int count, int dim, long seed) {
        register("weight", Tensor.randn(seed, count, dim));
    }

    /** Looks up int64 indices of any shape. */
    @Override
    public Tensor forward(Tensor indices) {
        return Functional.embedding(param("weight"), indices);
    }
}
