package dev.vantage.device.cpu.internal;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import org.junit.Test;

import dev.vantage.tensor.DType;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.KernelOps;

/** Reductions and softmax against explicit loops over every index. */
public class ReductionKernelsTest extends KernelTestSupport {

    /** Sum (or mean) of a [2, 3, 4] tensor over the dims flagged, by nested loops; result in row-major order. */
    private static double[] reference(Tensor x, boolean[] reduce, boolean mean) {
        int[] s = x.sizes();
        int count = 1;
        int outSize = 1;
        for (int d = 0; d < 3; d++) {
            count *= reduce[d] ? s[d] : 1;
            outSize *= reduce[d] ? 1 : s[d];
        }
        double[] out = new double[outSize];
        for (int i = 0; i < s[0]; i++) {
            for (int j = 0; j < s[1]; j++) {
                for (int k = 0; k < s[2]; k++) {
                    int o = 0;
                    o = reduce[0] ? o : o * s[0] + i;
                    o = reduce[1] ? o : o * s[1] + j;
                    o = reduce[2] ? o : o * s[2] + k;
                    out[o] += get(x, i, j, k);
                }
            }
        }
        for (int o = 0; mean && o < outSize; o++) {
            out[o] /= count;
        }
        return out;
    }

    @Test
    public void sumAndMeanOverEverySubsetOfDimsOfAPermutedView() {
        Tensor x = rand(1, 4, 2, 3).permute(1, 2, 0);           // [2, 3, 4], not contiguous
        for (int mask = 0; mask < 8; mask++) {
            boolean[] reduce = {(mask & 1) != 0, (mask & 2) != 0, (mask & 4) != 0};
            long[] dims = new long[Integer.bitCount(mask)];
            for (int d = 0, n = 0; d < 3; d++) {
                if (reduce[d]) {
                    dims[n++] = d;
                }
            }
            for (boolean keep : new boolean[] {false, true}) {
                long[] shape = new long[keep ? 3 : 3 - dims.length];
                for (int d = 0, n = 0; d < 3; d++) {
                    if (keep || !reduce[d]) {
                        shape[n++] = reduce[d] ? 1 : x.size(d);
                    }
                }
                long[][] ints = {dims, {keep ? 1 : 0}};
                String what = "dims " + java.util.Arrays.toString(dims) + " keepdim " + keep;
                assertClose("sum " + what, reference(x, reduce, false),
                        run(KernelOps.SUM, new Tensor[] {x}, null, ints, shape).toFloatArray(), 1e-6, 1e-6);
                assertClose("mean " + what, reference(x, reduce, true),
                        run(KernelOps.MEAN, new Tensor[] {x}, null, ints, shape).toFloatArray(), 1e-6, 1e-6);
            }
        }
    }

    @Test
    public void sumAccumulatesInDoubleSoSmallValuesSurvive() {
        float[] v = new float[100_001];
        v[0] = 1e8f;
        java.util.Arrays.fill(v, 1, v.length, 1f);              // in float, 1e8 + 1 == 1e8 every time
        Tensor out = run(KernelOps.SUM, new Tensor[] {Tensor.of(v, v.length)}, null, ints(list(0), list(0)));
        assertEquals(1.001e8f, out.item(), 0);
    }

    @Test
    public void sumRejectsAnOutputOfTheWrongShape() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> run(KernelOps.SUM,
                new Tensor[] {rand(1, 2, 3)}, null, ints(list(1), list(1)), 2));
        assertEquals("aten::sum: expected output of shape [2, 1], got [2] float", e.getMessage());
    }

    @Test
    public void argmaxFindsTheFirstMaximumAlongADim() {
        // columns of the transposed view: [3, 1, 3] -> 0, [2, 5, 5] -> 1, [-1, -4, -2] -> 0
        Tensor x = Tensor.of(new float[] {3, 2, -1, 1, 5, -4, 3, 5, -2}, 3, 3).t();
        Tensor out = zeros(DType.INT64, 3);
        call(KernelOps.ARGMAX, new Tensor[] {x}, new Tensor[] {out}, null, ints(list(1), list(0)));
        assertArrayEquals(new long[] {0, 1, 0}, out.storage().longs());
        Tensor keep = zeros(DType.INT64, 1, 3);
        call(KernelOps.ARGMAX, new Tensor[] {x}, new Tensor[] {keep}, null, ints(list(0), list(1)));
        // down the columns of the view: [3, 2, -1] -> 0, [1, 5, -4] -> 1, [3, 5, -2] -> 1
        assertArrayEquals(new long[] {0, 1, 1}, keep.storage().longs());
        Tensor nan = zeros(DType.INT64);
        call(KernelOps.ARGMAX, new Tensor[] {Tensor.of(new float[] {1, Float.NaN, 7, Float.NaN}, 4)},
                new Tensor[] {nan}, null, ints(list(0), list(0)));
        assertEquals("NaN counts as the maximum", 1L, nan.storage().longs()[0]);
    }

    /** softmax or log-softmax of a [3, 4] tensor along a dim, by loops. */
    private static double[] softmaxReference(Tensor x, int dim, boolean log) {
        double[] out = new double[12];
        for (int line = 0; line < (dim == 1 ? 3 : 4); line++) {
            double sum = 0;
            for (int j = 0; j < (dim == 1 ? 4 : 3); j++) {
                sum += Math.exp(dim == 1 ? get(x, line, j) : get(x, j, line));
            }
            for (int j = 0; j < (dim == 1 ? 4 : 3); j++) {
                int i = dim == 1 ? line * 4 + j : j * 4 + line;
                double v = dim == 1 ? get(x, line, j) : get(x, j, line);
                out[i] = log ? v - Math.log(sum) : Math.exp(v) / sum;
            }
        }
        return out;
    }

    @Test
    public void softmaxAndLogSoftmaxAlongEitherDimOfATransposedView() {
        Tensor x = rand(2, 4, 3).t();
        for (int dim : new int[] {0, 1, -1}) {
            int d = dim < 0 ? 1 : dim;
            assertClose("softmax dim " + dim, softmaxReference(x, d, false), run(KernelOps.SOFTMAX,
                    new Tensor[] {x}, null, ints(list(dim)), 3, 4).toFloatArray(), 1e-6, 1e-7);
            assertClose("log_softmax dim " + dim, softmaxReference(x, d, true), run(KernelOps.LOG_SOFTMAX,
                    new Tensor[] {x}, null, ints(list(dim)), 3, 4).toFloatArray(), 1e-6, 1e-6);
        }
    }

    @Test
    public void softmaxSubtractsTheMaximumSoLargeLogitsDoNotOverflow() {
        Tensor x = Tensor.of(new float[] {1000, 1001, 1002}, 1, 3);
        float[] p = run(KernelOps.SOFTMAX, new Tensor[] {x}, null, ints(list(1)), 1, 3).toFloatArray();
        double z = 1 + Math.exp(1) + Math.exp(2);
        assertClose("softmax", new double[] {1 / z, Math.E / z, Math.exp(2) / z}, p, 1e-6, 0);
        float[] lp = run(KernelOps.LOG_SOFTMAX, new Tensor[] {x}, null, ints(list(1)), 1, 3).toFloatArray();
        assertClose("log_softmax", new double[] {-Math.log(z), 1 - Math.log(z), 2 - Math.log(z)}, lp, 1e-6, 0);
    }

    @Test
    public void softmaxGradientsMatchTheirFormulas() {
        Tensor g = rand(3, 4, 3).t();
        Tensor y = run(KernelOps.SOFTMAX, new Tensor[] {rand(4, 3, 4)}, null, ints(list(0)), 3, 4);
        Tensor ly = run(KernelOps.LOG_SOFTMAX, new Tensor[] {rand(5, 3, 4)}, null, ints(list(0)), 3, 4);
        double[] soft = new double[12];
        double[] logSoft = new double[12];
        for (int col = 0; col < 4; col++) {
            double dot = 0;
            double sum = 0;
            for (int r = 0; r < 3; r++) {
                dot += get(g, r, col) * get(y, r, col);
                sum += get(g, r, col);
            }
            for (int r = 0; r < 3; r++) {
                soft[r * 4 + col] = get(y, r, col) * (get(g, r, col) - dot);
                logSoft[r * 4 + col] = get(g, r, col) - Math.exp(get(ly, r, col)) * sum;
            }
        }
        assertClose("softmax backward", soft, run(KernelOps.SOFTMAX_BACKWARD_DATA, new Tensor[] {g, y},
                null, ints(list(0)), 3, 4).toFloatArray(), 1e-5, 1e-6);
        assertClose("log_softmax backward", logSoft, run(KernelOps.LOG_SOFTMAX_BACKWARD_DATA,
                new Tensor[] {g, ly}, null, ints(list(0)), 3, 4).toFloatArray(), 1e-5, 1e-6);
    }
}
