package dev.vantage.device.cpu.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import org.junit.Test;

import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.KernelOps;

/** Products and convolutions against direct sums in double, on packed, transposed and sliced operands. */
public class LinalgKernelsTest extends KernelTestSupport {

    private static double[] product(Tensor a, Tensor b) {
        int m = a.size(0);
        int k = a.size(1);
        int n = b.size(1);
        double[] c = new double[m * n];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                for (int p = 0; p < k; p++) {
                    c[i * n + j] += (double) get(a, i, p) * get(b, p, j);
                }
            }
        }
        return c;
    }

    @Test
    public void mmMultipliesTransposedAndSlicedViews() {
        Tensor a = rand(1, 37, 19).t();                          // [19, 37]
        Tensor b = rand(2, 40, 23).slice(0, 3, 40);              // [37, 23], offset 3 rows
        assertClose("mm", product(a, b), run(KernelOps.MM, new Tensor[] {a, b}, null, null, 19, 23)
                .toFloatArray(), 1e-5, 1e-5);
        // big enough to split over the pool
        Tensor x = rand(3, 130, 70);
        Tensor y = rand(4, 90, 70).t();
        assertClose("mm parallel", product(x, y), run(KernelOps.MM, new Tensor[] {x, y}, null, null, 130, 90)
                .toFloatArray(), 1e-5, 1e-4);
    }

    @Test
    public void addmmScalesTheProductAndABroadcastBias() {
        Tensor a = rand(5, 6, 4);
        Tensor b = rand(6, 5, 4).t();
        Tensor[] biases = {rand(7, 5), rand(8, 6, 1), rand(9, 6, 5).t().t()};
        for (Tensor bias : biases) {
            double[] ab = product(a, b);
            double[] expected = new double[30];
            for (int i = 0; i < 6; i++) {
                for (int j = 0; j < 5; j++) {
                    expected[i * 5 + j] = 0.5 * get(bias, i, j) + 2 * ab[i * 5 + j];
                }
            }
            assertClose("addmm bias " + bias, expected, run(KernelOps.ADDMM, new Tensor[] {bias, a, b},
                    new double[] {0.5, 2}, null, 6, 5).toFloatArray(), 1e-5, 1e-5);
        }
        Tensor nanBias = Tensor.full(Float.NaN, 5);
        double[] scaled = product(a, b);
        for (int i = 0; i < scaled.length; i++) {
            scaled[i] *= 3;
        }
        assertClose("beta 0 ignores the bias", scaled, run(KernelOps.ADDMM, new Tensor[] {nanBias, a, b},
                new double[] {0, 3}, null, 6, 5).toFloatArray(), 1e-5, 1e-5);
    }

    @Test
    public void bmmMultipliesEachBatchOfTransposedViews() {
        for (int[] s : new int[][] {{5, 3, 4, 2}, {3, 40, 50, 60}}) {
            int batches = s[0];
            Tensor a = rand(10, batches, s[2], s[1]).transpose(1, 2);   // [B, m, k]
            Tensor b = rand(11, batches, s[2], s[3]);
            float[] out = run(KernelOps.BMM, new Tensor[] {a, b}, null, null, batches, s[1], s[3]).toFloatArray();
            double[] expected = new double[batches * s[1] * s[3]];
            for (int q = 0; q < batches; q++) {
                for (int i = 0; i < s[1]; i++) {
                    for (int j = 0; j < s[3]; j++) {
                        for (int p = 0; p < s[2]; p++) {
                            expected[(q * s[1] + i) * s[3] + j] += (double) get(a, q, i, p) * get(b, q, p, j);
                        }
                    }
                }
            }
            assertClose("bmm " + java.util.Arrays.toString(s), expected, out, 1e-5, 1e-4);
        }
    }

    @Test
    public void productsRejectShapesThatDoNotMultiply() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> run(KernelOps.MM, new Tensor[] {rand(1, 2, 3), rand(2, 2, 3)}, null, null, 2, 3));
        assertEquals("aten::mm: shapes [2, 3] float and [2, 3] float cannot be multiplied into [2, 3] float",
                e.getMessage());
    }

    // ---------------------------------------------------------------- convolution

    /** Direct convolution by its definition; returns [N, O, OH, OW] row-major. */
    private static double[] convolve(Tensor x, Tensor w, Tensor bias, int[] st, int[] pad, int[] dil, int oh,
            int ow) {
        int n = x.size(0);
        int c = x.size(1);
        int o = w.size(0);
        double[] out = new double[n * o * oh * ow];
        for (int b = 0; b < n; b++) {
            for (int oc = 0; oc < o; oc++) {
                for (int y = 0; y < oh; y++) {
                    for (int z = 0; z < ow; z++) {
                        double s = bias == null ? 0 : get(bias, oc);
                        for (int ic = 0; ic < c; ic++) {
                            for (int i = 0; i < w.size(2); i++) {
                                for (int j = 0; j < w.size(3); j++) {
                                    int h = y * st[0] - pad[0] + i * dil[0];
                                    int v = z * st[1] - pad[1] + j * dil[1];
                                    if (h >= 0 && h < x.size(2) && v >= 0 && v < x.size(3)) {
                                        s += (double) get(x, b, ic, h, v) * get(w, oc, ic, i, j);
                                    }
                                }
                            }
                        }
                        out[((b * o + oc) * oh + y) * ow + z] = s;
                    }
                }
            }
        }
        return out;
    }

    private static long[][] convInts(int[] st, int[] pad, int[] dil) {
        return ints(list(st[0], st[1]), list(pad[0], pad[1]), list(dil[0], dil[1]));
    }

    @Test
    public void convolutionWithStridePaddingAndDilation() {
        Tensor x = rand(20, 2, 3, 9, 8);
        Tensor w = rand(21, 4, 3, 3, 2);
        Tensor bias = rand(22, 4);
        int[][][] cases = {{{1, 1}, {0, 0}, {1, 1}}, {{2, 1}, {1, 2}, {1, 1}}, {{2, 3}, {2, 1}, {2, 1}}};
        for (int[][] k : cases) {
            int oh = (9 + 2 * k[1][0] - k[2][0] * 2 - 1) / k[0][0] + 1;
            int ow = (8 + 2 * k[1][1] - k[2][1] * 1 - 1) / k[0][1] + 1;
            String what = "stride " + k[0][0] + "x" + k[0][1] + " padding " + k[1][0] + "x" + k[1][1];
            assertClose(what, convolve(x, w, bias, k[0], k[1], k[2], oh, ow), run(KernelOps.CONVOLUTION,
                    new Tensor[] {x, w, bias}, null, convInts(k[0], k[1], k[2]), 2, 4, oh, ow).toFloatArray(),
                    1e-5, 1e-5);
            assertClose(what + " without bias", convolve(x, w, null, k[0], k[1], k[2], oh, ow),
                    run(KernelOps.CONVOLUTION, new Tensor[] {x, w, null}, null, convInts(k[0], k[1], k[2]), 2, 4,
                            oh, ow).toFloatArray(), 1e-5, 1e-5);
        }
    }

    @Test
    public void convolutionOfAPermutedInputAndManyImagesOverThePool() {
        Tensor x = rand(23, 20, 12, 12, 3).permute(0, 3, 1, 2);  // channels-last storage
        Tensor w = rand(24, 8, 3, 3, 3);
        int[] one = {1, 1};
        assertClose("conv", convolve(x, w, null, one, one, one, 12, 12), run(KernelOps.CONVOLUTION,
                new Tensor[] {x, w, null}, null, convInts(one, one, one), 20, 8, 12, 12).toFloatArray(),
                1e-5, 1e-5);
    }

    /**
     * The gradients by their definitions: out = sum x * w, so dL/dx[b,c,h,v] = sum over the outputs that read it
     * of g * w, dL/dw = sum of g * x at the same pairs, dL/dbias = sum of g.
     */
    @Test
    public void convolutionBackwardMatchesTheSumsOverEveryInputOutputPair() {
        Tensor x = rand(30, 3, 2, 7, 6);
        Tensor w = rand(31, 4, 2, 3, 3);
        int[] st = {2, 1};
        int[] pad = {1, 1};
        int[] dil = {1, 2};
        int oh = (7 + 2 - 2 - 1) / 2 + 1;
        int ow = (6 + 2 - 4 - 1) + 1;
        Tensor g = rand(32, 3, 4, ow, oh).transpose(2, 3);      // a strided gradient
        double[] gx = new double[x.numel()];
        double[] gw = new double[w.numel()];
        double[] gb = new double[4];
        for (int b = 0; b < 3; b++) {
            for (int oc = 0; oc < 4; oc++) {
                for (int y = 0; y < oh; y++) {
                    for (int z = 0; z < ow; z++) {
                        double gv = get(g, b, oc, y, z);
                        gb[oc] += gv;
                        for (int ic = 0; ic < 2; ic++) {
                            for (int i = 0; i < 3; i++) {
                                for (int j = 0; j < 3; j++) {
                                    int h = y * st[0] - pad[0] + i * dil[0];
                                    int v = z * st[1] - pad[1] + j * dil[1];
                                    if (h >= 0 && h < 7 && v >= 0 && v < 6) {
                                        gx[((b * 2 + ic) * 7 + h) * 6 + v] += gv * get(w, oc, ic, i, j);
                                        gw[((oc * 2 + ic) * 3 + i) * 3 + j] += gv * get(x, b, ic, h, v);
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        long[][] ints = {list(st[0], st[1]), list(pad[0], pad[1]), list(dil[0], dil[1]), list(1)};
        Tensor[] out = {Tensor.zeros(x.shape()), Tensor.zeros(w.shape()), Tensor.zeros(4)};
        call(KernelOps.CONVOLUTION_BACKWARD, new Tensor[] {g, x, w}, out, null, ints);
        assertClose("grad_input", gx, out[0].toFloatArray(), 1e-5, 1e-5);
        assertClose("grad_weight", gw, out[1].toFloatArray(), 1e-5, 1e-5);
        assertClose("grad_bias", gb, out[2].toFloatArray(), 1e-5, 1e-5);
        ints[3] = list(0);
        Tensor[] noBias = {Tensor.zeros(x.shape()), Tensor.zeros(w.shape()), null};
        call(KernelOps.CONVOLUTION_BACKWARD, new Tensor[] {g, x, w}, noBias, null, ints);
        assertClose("grad_weight without bias", gw, noBias[1].toFloatArray(), 1e-5, 1e-5);
    }

    @Test
    public void convolutionRejectsMismatchedChannels() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> run(KernelOps.CONVOLUTION,
                new Tensor[] {rand(1, 1, 2, 5, 5), rand(2, 3, 3, 3, 3), null}, null,
                ints(list(1, 1), list(0, 0), list(1, 1)), 1, 3, 3, 3));
        assertEquals("aten::convolution: input [1, 2, 5, 5] float and weight [3, 3, 3, 3] float with stride [1, 1],"
                + " padding [0, 0] and dilation [1, 1] are not a 2-d convolution", e.getMessage());
    }
}
