package dev.vantage.device.cpu.internal;

import java.util.Arrays;

import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.KernelCall;
import dev.vantage.tensor.spi.KernelOps;
import dev.vantage.tensor.spi.KernelRegistry;

/**
 * 2-d max pooling with the position of each maximum, and its gradient, which sends each output's gradient to
 * that position. Padding counts as minus infinity, so it never wins; a NaN in a window wins, as in torch.
 * Stateless.
 */
final class PoolKernels {

    private PoolKernels() {
    }

    static void register(KernelRegistry r) {
        r.register(KernelOps.MAX_POOL2D_WITH_INDICES, PoolKernels::maxPool);
        r.register(KernelOps.MAX_POOL2D_WITH_INDICES_BACKWARD, PoolKernels::maxPoolBackward);
    }

    /** Checks input [N, C, H, W] and the window; returns the output shape [N, C, H', W']. */
    private static int[] outShape(KernelCall c, Tensor x) {
        long[] kernel = c.ints(0);
        long[] stride = c.ints(1);
        long[] padding = c.ints(2);
        boolean fits = x.dim() == 4 && kernel.length == 2 && stride.length == 2 && padding.length == 2;
        for (int i = 0; fits && i < 2; i++) {
            fits = kernel[i] >= 1 && stride[i] >= 1 && padding[i] >= 0 && padding[i] * 2 <= kernel[i]
                    && x.size(2 + i) + 2 * padding[i] >= kernel[i];
        }
        if (!fits) {
            throw new IllegalArgumentException(c.op() + ": kernel " + Arrays.toString(kernel) + ", stride "
                    + Arrays.toString(stride) + " and padding " + Arrays.toString(padding) + " do not fit input "
                    + Strided.describe(x));
        }
        int oh = (int) ((x.size(2) + 2 * padding[0] - kernel[0]) / stride[0] + 1);
        int ow = (int) ((x.size(3) + 2 * padding[1] - kernel[1]) / stride[1] + 1);
        return new int[] {x.size(0), x.size(1), oh, ow};
    }

    private static void maxPool(KernelCall c) {
        String op = c.op();
        Tensor input = c.input(0);
        int[] shape = outShape(c, input);
        Strided.requireShape(op, "values", c.output(0), shape);
        Strided.requireShape(op, "indices", c.output(1), shape);
        int kh = (int) c.ints(0)[0];
        int kw = (int) c.ints(0)[1];
        int sh = (int) c.ints(1)[0];
        int sw = (int) c.ints(1)[1];
        int ph = (int) c.ints(2)[0];
        int pw = (int) c.ints(2)[1];
        int h = input.size(2);
        int w = input.size(3);
        int oh = shape[2];
        int ow = shape[3];
        float[] x = Strided.packed(op, input);
        float[] values = Strided.target(op, c.output(0));
        long[] indices = Strided.targetLongs(op, c.output(1));
        int planes = shape[0] * shape[1];
        for (int p = 0, at = 0; p < planes; p++) {
            int plane = p * h * w;
            for (int y = 0; y < oh; y++) {
                int h0 = Math.max(y * sh - ph, 0);
                int h1 = Math.min(y * sh - ph + kh, h);
                for (int z = 0; z < ow; z++, at++) {
                    int w0 = Math.max(z * sw - pw, 0);
                    int w1 = Math.min(z * sw - pw + kw, w);
                    float max = Float.NEGATIVE_INFINITY;
                    int best = h0 * w + w0;
                    for (int i = h0; i < h1; i++) {
                        for (int j = w0; j < w1; j++) {
                            float v = x[plane + i * w + j];
                            if (v > max || Float.isNaN(v)) {
                                max = v;
                                best = i * w + j;
                            }
                        }
                    }
                    values[at] = max;
                    indices[at] = best;
                }
            }
        }
        Strided.store(values, c.output(0));
        Strided.store(indices, c.output(1));
    }

    private static void maxPoolBackward(KernelCall c) {
        String op = c.op();
        Tensor gradOut = c.input(0);
        Tensor input = c.input(1);
        Tensor indexIn = c.input(2);
        int[] shape = outShape(c, input);
        Strided.requireShape(op, "grad_output", gradOut, shape);
        Strided.requireShape(op, "indices", indexIn, shape);
        Strided.requireShape(op, "grad_input", c.output(0), input.sizes());
        float[] g = Strided.packed(op, gradOut);
        long[] indices = Strided.packedLongs(op, indexIn);
        float[] gx = Strided.target(op, c.output(0));
        Arrays.fill(gx, 0f);
        int area = input.size(2) * input.size(3);
        int per = shape[2] * shape[3];
        for (int i = 0; i < g.length; i++) {
            long index = indices[i];
            if (index < 0 || index >= area) {
                throw new IndexOutOfBoundsException(op + ": index " + index + " is outside a plane of " + area
                        + " elements of input " + Strided.describe(input));
            }
            gx[i / per * area + (int) index] += g[i];
        }
        Strided.store(gx, c.output(0));
    }
}
