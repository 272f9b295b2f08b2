package dev.vantage.tensor.spi;

import dev.vantage.tensor.Tensor;

/** A kernel of an op with one tensor input. Thread-safe; may be called from many threads at once. */
@FunctionalInterface
public interface UnaryKernel {

    /**
     * Computes the op.
     *
     * @throws IllegalArgumentException if the input does not fit the op; the message names the op and the shape
     */
    Tensor apply(Tensor a);
}
