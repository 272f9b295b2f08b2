package dev.vantage.tensor.spi;

import dev.vantage.tensor.Tensor;

/** A kernel of an op with two tensor inputs. Thread-safe; may be called from many threads at once. */
@FunctionalInterface
public interface BinaryKernel {

    /**
     * Computes the op.
     *
     * @throws IllegalArgumentException if the inputs do not fit the op; the message names the op and the shapes
     */
    Tensor apply(Tensor a, Tensor b);
}
