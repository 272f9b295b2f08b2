package dev.vantage.device.cpu.internal;

import java.util.Arrays;
import java.util.function.Supplier;

import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.KernelCall;
import dev.vantage.tensor.spi.KernelOps;
import dev.vantage.tensor.spi.KernelRegistry;

/**
 * 2-d convolution and its gradient by im2col: each image's receptive fields are unrolled into the columns of a
 * {@code [C*kh*kw, H'*W']} matrix, so that the convolution is one product with the weight {@code [O, C*kh*kw]}.
 * The gradients are products with the same matrix (grad_weight) or scatter back through col2im (grad_input).
 *
 * <p>Images are split into a fixed number of chunks run over the pool, each with its own scratch matrices and,
 * backward, its own partial weight and bias gradients, summed in chunk order at the end; so results do not
 * depend on the number of threads or their timing. A single image instead splits its products by rows. Stateless.
 */
final class ConvKernels {

    /** At most this many chunks of images; fixed, so that the partial sums of the gradients are too. */
    private static final int CHUNKS = 16;

    private ConvKernels() {
    }

    static void register(KernelRegistry r, Supplier<MatmulKernel> matmul) {
        r.register(KernelOps.CONVOLUTION, c -> forward(c, matmul.get()));
        r.register(KernelOps.CONVOLUTION_BACKWARD, c -> backward(c, matmul.get()));
    }

    /** The sizes of one convolution, checked against the input and weight. */
    private record Geometry(int n, int c, int h, int w, int o, int kh, int kw, int sh, int sw, int ph, int pw,
            int dh, int dw, int oh, int ow) {

        static Geometry of(KernelCall call, Tensor x, Tensor weight) {
            String op = call.op();
            long[] stride = call.ints(0);
            long[] padding = call.ints(1);
            long[] dilation = call.ints(2);
            if (x.dim() != 4 || weight.dim() != 4 || x.size(1) != weight.size(1) || stride.length != 2
                    || padding.length != 2 || dilation.length != 2 || stride[0] < 1 || stride[1] < 1
                    || padding[0] < 0 || padding[1] < 0 || dilation[0] < 1 || dilation[1] < 1) {
                throw new IllegalArgumentException(op + ": input " + Strided.describe(x) + " and weight "
                        + Strided.describe(weight) + " with stride " + Arrays.toString(stride) + ", padding "
                        + Arrays.toString(padding) + " and dilation " + Arrays.toString(dilation)
                        + " are not a 2-d convolution");
            }
            int kh = weight.size(2);
            int kw = weight.size(3);
            int oh = (x.size(2) + 2 * (int) padding[0] - (int) dilation[0] * (kh - 1) - 1) / (int) stride[0] + 1;
            int ow = (x.size(3) + 2 * (int) padding[1] - (int) dilation[1] * (kw - 1) - 1) / (int) stride[1] + 1;
            if (oh <= 0 || ow <= 0) {
                throw new IllegalArgumentException(op + ": the kernel of " + Strided.describe(weight)
                        + " does not fit the padded input " + Strided.describe(x));
            }
            return new Geometry(x.size(0), x.size(1), x.size(2), x.size(3), weight.size(0), kh, kw,
                    (int) stride[0], (int) stride[1], (int) padding[0], (int) padding[1], (int) dilation[0],
                    (int) dilation[1], oh, ow);
        }

        int rows() {
            return c * kh * kw;
        }

        int cols() {
            return oh * ow;
        }

        int[] outShape() {
            return new int[] {n, o, oh, ow};
        }

        /** Unrolls image {@code img} of {@code x} into {@code col [C*kh*kw, H'*W']}; padding reads as 0. */
        void im2col(float[] x, int img, float[] col) {
            walk(x, img, col, true);
        }

        /** Adds {@code col [C*kh*kw, H'*W']} back into image {@code img} of {@code gx}: im2col's transpose. */
        void col2im(float[] col, float[] gx, int img) {
            walk(gx, img, col, false);
        }

        /**
         * Pairs each element of {@code col [C*kh*kw, H'*W']} with the element of image {@code img} it unrolls:
         * {@code toCol} copies the image's into it (0 where it falls in the padding), else it is added back to the
         * image's (nothing where it falls in the padding).
         */
        private void walk(float[] image, int img, float[] col, boolean toCol) {
            int cols = cols();
            for (int ch = 0, row = 0; ch < c; ch++) {
                int plane = (img * c + ch) * h * w;
                for (int i = 0; i < kh; i++) {
                    for (int j = 0; j < kw; j++, row++) {
                        int at = row * cols;
                        for (int y = 0; y < oh; y++, at += ow) {
                            int hi = y * sh - ph + i * dh;
                            if (hi < 0 || hi >= h) {
                                if (toCol) {
                                    Arrays.fill(col, at, at + ow, 0f);
                                }
                                continue;
                            }
                            int line = plane + hi * w;
                            int wi = j * dw - pw;
                            if (toCol) {
                                for (int z = 0; z < ow; z++, wi += sw) {
                                    col[at + z] = wi >= 0 && wi < w ? image[line + wi] : 0f;
                                }
                            } else {
                                for (int z = 0; z < ow; z++, wi += sw) {
                                    if (wi >= 0 && wi < w) {
                                        image[line + wi] += col[at + z];
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    private static void forward(KernelCall call, MatmulKernel matmul) {
        String op = call.op();
        Tensor input = call.input(0);
        Tensor weight = call.input(1);
        Tensor bias = call.input(2);
        Tensor out = call.output(0);
        Geometry g = Geometry.of(call, input, weight);
        Strided.requireShape(op, "output", out, g.outShape());
        if (bias != null) {
            Strided.requireShape(op, "bias", bias, g.o());
        }
        float[] x = Strided.packed(op, input);
        float[] w = Strided.packed(op, weight);
        float[] b = bias == null ? null : Strided.packed(op, bias);
        float[] o = Strided.target(op, out);
        int rows = g.rows();
        int cols = g.cols();
        int chunks = Math.min(g.n(), CHUNKS);
        MatmulKernel inner = chunks == 1 ? matmul : MatmulKernel.serial();
        matmul.parallelFor(chunks, (long) g.o() * rows * cols * g.n() / Math.max(chunks, 1), chunk -> {
            float[] col = new float[rows * cols];
            for (int img = first(chunk, chunks, g.n()); img < first(chunk + 1, chunks, g.n()); img++) {
                g.im2col(x, img, col);
                int base = img * g.o() * cols;
                inner.multiply(w, 0, col, 0, o, base, g.o(), rows, cols);
                for (int oc = 0; b != null && oc < g.o(); oc++) {
                    float v = b[oc];
                    for (int i = base + oc * cols, end = i + cols; i < end; i++) {
                        o[i] += v;
                    }
                }
            }
        });
        Strided.store(o, out);
    }

    /** The first image of a chunk: images are dealt out in contiguous, nearly equal runs. */
    private static int first(int chunk, int chunks, int n) {
        return (int) ((long) chunk * n / chunks);
    }

    /**
     * grad_input = col2im(W^T @ grad), grad_weight = sum over images of grad @ im2col(x)^T (computed transposed,
     * as im2col(x) @ grad^T, so the long dimension splits into rows), grad_bias = grad summed over all but O.
     */
    private static void backward(KernelCall call, MatmulKernel matmul) {
        String op = call.op();
        Tensor gradOut = call.input(0);
        Tensor input = call.input(1);
        Tensor weight = call.input(2);
        Geometry g = Geometry.of(call, input, weight);
        Strided.requireShape(op, "grad_output", gradOut, g.outShape());
        Tensor gxOut = call.output(0);
        Tensor gwOut = call.output(1);
        Tensor gbOut = call.outputCount() > 2 && call.ints(3)[0] != 0 ? call.output(2) : null;
        if (gxOut != null) {
            Strided.requireShape(op, "grad_input", gxOut, input.sizes());
        }
        if (gwOut != null) {
            Strided.requireShape(op, "grad_weight", gwOut, weight.sizes());
        }
        if (gbOut != null) {
            Strided.requireShape(op, "grad_bias", gbOut, g.o());
        }
        float[] grad = Strided.packed(op, gradOut);
        float[] x = Strided.packed(op, input);
        int rows = g.rows();
        int cols = g.cols();
        int o = g.o();
        float[] wt = gxOut == null ? null : transpose(Strided.packed(op, weight), o, rows);
        float[] gx = gxOut == null ? null : Strided.target(op, gxOut);
        if (gx != null) {
            Arrays.fill(gx, 0f);
        }
        int chunks = Math.min(g.n(), CHUNKS);
        float[][] gwParts = new float[chunks][];
        double[][] gbParts = new double[chunks][];
        MatmulKernel inner = chunks == 1 ? matmul : MatmulKernel.serial();
        matmul.parallelFor(chunks, 2L * o * rows * cols * g.n() / Math.max(chunks, 1), chunk -> {
            float[] col = new float[rows * cols];
            float[] gradT = gwOut == null ? null : new float[cols * o];
            float[] part = gwOut == null ? null : new float[rows * o];
            float[] sum = gwOut == null ? null : new float[rows * o];
            double[] gb = gbOut == null ? null : new double[o];
            for (int img = first(chunk, chunks, g.n()); img < first(chunk + 1, chunks, g.n()); img++) {
                int base = img * o * cols;
                if (gx != null) {
                    inner.multiply(wt, 0, grad, base, col, 0, rows, o, cols);
                    g.col2im(col, gx, img);
                }
                if (gwOut != null) {
                    g.im2col(x, img, col);
                    for (int oc = 0; oc < o; oc++) {
                        for (int l = 0; l < cols; l++) {
                            gradT[l * o + oc] = grad[base + oc * cols + l];
                        }
                    }
                    inner.multiply(col, 0, gradT, 0, part, 0, rows, cols, o);
                    for (int i = 0; i < part.length; i++) {
                        sum[i] += part[i];
                    }
                }
                for (int oc = 0; gb != null && oc < o; oc++) {
                    double s = 0;
                    for (int i = base + oc * cols, end = i + cols; i < end; i++) {
                        s += grad[i];
                    }
                    gb[oc] += s;
                }
            }
            gwParts[chunk] = sum;
            gbParts[chunk] = gb;
        });
        if (gx != null) {
            Strided.store(gx, gxOut);
        }
        if (gwOut != null) {
            float[] gw = Strided.target(op, gwOut);
            Arrays.fill(gw, 0f);
            for (float[] p : gwParts) {
                for (int r = 0; p != null && r < rows; r++) {
                    for (int oc = 0; oc < o; oc++) {
                        gw[oc * rows + r] += p[r * o + oc];
                    }
                }
            }
            Strided.store(gw, gwOut);
        }
        if (gbOut != null) {
            float[] gb = Strided.target(op, gbOut);
            for (int oc = 0; oc < o; oc++) {
                double s = 0;
                for (double[] p : gbParts) {
                    s += p == null ? 0 : p[oc];
                }
                gb[oc] = (float) s;
            }
            Strided.store(gb, gbOut);
        }
    }

    /** The transpose of a row-major {@code [rows, cols]} matrix. */
    private static float[] transpose(float[] a, int rows, int cols) {
        float[] t = new float[a.length];
        for (int r = 0; r < rows; r++) {
            for (int q = 0; q < cols; q++) {
                t[q * rows + r] = a[r * cols + q];
            }
        }
        return t;
    }
}
