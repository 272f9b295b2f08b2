package dev.vantage.tensor.nn;

import dev.vantage.tensor.Functional;
import dev.vantage.tensor.Tensor;

/** 2-d convolution with a square kernel, initialised uniform in {@code ±1/sqrt(in * k * k)} as torch does. */
public final class Conv2d extends Module {

    private final int stride;
    private final int padding;

    /**
     * @param in input channels
     * @param out output channels
     * @param kernel kernel size
     * @param stride stride, 1 or more
     * @param padding zero padding on each side
     * @param seed seed of the initial weights
     */
    public Conv2d(int in, int out, int kernel, int stride, int padding, long seed) {
        if (in < 1 || out < 1 || kernel < 1 || stride < 1 || padding < 0) {
            throw new IllegalArgumentException("Conv2d: invalid sizes in=" + in + " out=" + out + " kernel=" + kernel
                    + " stride=" + stride + " padding=" + padding);
        }
        this.stride = stride;
        this.padding = padding;
        float bound = (float) (1 / Math.sqrt((double) in * kernel * kernel));
        register("weight", Tensor.uniform(seed, -bound, bound, out, in, kernel, kernel));
        register("bias", Tensor.uniform(seed + 1, -bound, bound, out));
    }

    @Override
    public Tensor forward(Tensor x) {
        return Functional.conv2d(x, param("weight"), param("bias"), stride, padding);
    }
}
