package dev.vantage.device.cpu.internal;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

import dev.vantage.tensor.DType;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.KernelOps;

/** Layer norm, nll loss and dropout against their definitions. */
public class NnKernelsTest extends KernelTestSupport {

    // ---------------------------------------------------------------- layer norm

    private static final int ROWS = 6;
    private static final int COLS = 8;

    /** Layer norm over the last two dims [2, 4] of a [6, 2, 4] input; returns {out, mean, rstd, xhat}. */
    private static double[][] layerNormReference(float[] x, float[] w, float[] b, double eps) {
        double[] out = new double[x.length];
        double[] mean = new double[ROWS];
        double[] rstd = new double[ROWS];
        double[] xhat = new double[x.length];
        for (int r = 0; r < ROWS; r++) {
            double s = 0;
            for (int j = 0; j < COLS; j++) {
                s += x[r * COLS + j];
            }
            mean[r] = s / COLS;
            double v = 0;
            for (int j = 0; j < COLS; j++) {
                v += (x[r * COLS + j] - mean[r]) * (x[r * COLS + j] - mean[r]);
            }
            rstd[r] = 1 / Math.sqrt(v / COLS + eps);
            for (int j = 0; j < COLS; j++) {
                xhat[r * COLS + j] = (x[r * COLS + j] - mean[r]) * rstd[r];
                out[r * COLS + j] = xhat[r * COLS + j] * (w == null ? 1 : w[j]) + (b == null ? 0 : b[j]);
            }
        }
        return new double[][] {out, mean, rstd, xhat};
    }

    @Test
    public void layerNormNormalisesTheTrailingDimsWithOptionalAffine() {
        Tensor x = rand(1, 2, 4, 6).permute(2, 0, 1);            // [6, 2, 4], strided
        Tensor w = rand(2, 2, 4);
        Tensor b = rand(3, 2, 4);
        for (boolean affine : new boolean[] {true, false}) {
            Tensor[] out = {Tensor.zeros(6, 2, 4), Tensor.zeros(6, 1, 1), Tensor.zeros(6, 1, 1)};
            call(KernelOps.NATIVE_LAYER_NORM, new Tensor[] {x, affine ? w : null, affine ? b : null}, out,
                    new double[] {1e-5}, ints(list(2, 4)));
            double[][] ref = layerNormReference(read(x), affine ? read(w) : null, affine ? read(b) : null, 1e-5);
            assertClose("output", ref[0], out[0].toFloatArray(), 1e-5, 1e-5);
            assertClose("mean", ref[1], out[1].toFloatArray(), 1e-6, 1e-6);
            assertClose("rstd", ref[2], out[2].toFloatArray(), 1e-6, 1e-6);
        }
    }

    @Test
    public void layerNormBackwardMatchesItsClosedFormAndFiniteDifferences() {
        Tensor x = rand(4, 6, 2, 4);
        Tensor w = rand(5, 2, 4);
        Tensor g = rand(6, 6, 2, 4);
        Tensor[] fwd = {Tensor.zeros(6, 2, 4), Tensor.zeros(6, 1, 1), Tensor.zeros(6, 1, 1)};
        call(KernelOps.NATIVE_LAYER_NORM, new Tensor[] {x, w, null}, fwd, new double[] {1e-5}, ints(list(2, 4)));
        Tensor[] out = {Tensor.zeros(6, 2, 4), Tensor.zeros(2, 4), Tensor.zeros(2, 4)};
        call(KernelOps.NATIVE_LAYER_NORM_BACKWARD, new Tensor[] {g, x, fwd[1], fwd[2], w}, out, null,
                ints(list(2, 4)));
        float[] xv = read(x);
        float[] wv = read(w);
        float[] gv = read(g);
        double[][] ref = layerNormReference(xv, wv, null, 1e-5);
        double[] gw = new double[COLS];
        double[] gb = new double[COLS];
        for (int i = 0; i < xv.length; i++) {
            gw[i % COLS] += gv[i] * ref[3][i];
            gb[i % COLS] += gv[i];
        }
        assertClose("grad_weight", gw, out[1].toFloatArray(), 1e-5, 1e-5);
        assertClose("grad_bias", gb, out[2].toFloatArray(), 1e-5, 1e-5);
        // grad_input by central differences of L = sum(g * layer_norm(x)) in double
        double[] gx = new double[xv.length];
        double h = 1e-3;
        for (int i = 0; i < xv.length; i++) {
            float[] plus = xv.clone();
            float[] minus = xv.clone();
            plus[i] += (float) h;
            minus[i] -= (float) h;
            double step = (double) plus[i] - minus[i];
            double[] up = layerNormReference(plus, wv, null, 1e-5)[0];
            double[] down = layerNormReference(minus, wv, null, 1e-5)[0];
            for (int j = 0; j < xv.length; j++) {
                gx[i] += gv[j] * (up[j] - down[j]) / step;
            }
        }
        assertClose("grad_input", gx, out[0].toFloatArray(), 1e-3, 1e-4);
        Tensor[] inputOnly = {Tensor.zeros(6, 2, 4), null, null};
        call(KernelOps.NATIVE_LAYER_NORM_BACKWARD, new Tensor[] {g, x, fwd[1], fwd[2], w}, inputOnly, null,
                ints(list(2, 4)));
        assertArrayEquals(out[0].toFloatArray(), inputOnly[0].toFloatArray(), 0);
    }

    // ---------------------------------------------------------------- nll loss

    private static final float[] LOG_PROBS = {-1.2f, -0.3f, -2.0f, -0.7f, -1.9f, -0.9f, -2.5f, -0.1f, -3.0f,
        -0.4f, -1.5f, -1.8f};

    @Test
    public void nllLossReducesOverSamplesThatAreNotIgnored() {
        Tensor x = Tensor.of(LOG_PROBS, 4, 3);
        Tensor target = Tensor.ofLongs(new long[] {1, -100, 0, 2}, 4);
        long[] ignore = list(-100);
        Tensor none = Tensor.zeros(4);
        Tensor total = Tensor.zeros();
        call(KernelOps.NLL_LOSS_FORWARD, new Tensor[] {x, target}, new Tensor[] {none, total}, null,
                ints(list(0), ignore));
        assertArrayEquals(new float[] {0.3f, 0, 2.5f, 1.8f}, none.toFloatArray(), 1e-6f);
        assertEquals(3f, total.item(), 0);
        Tensor mean = Tensor.zeros();
        call(KernelOps.NLL_LOSS_FORWARD, new Tensor[] {x, target}, new Tensor[] {mean, total}, null,
                ints(list(1), ignore));
        assertEquals((0.3 + 2.5 + 1.8) / 3, mean.item(), 1e-6);
        assertEquals(3f, total.item(), 0);
        Tensor sum = Tensor.zeros();
        call(KernelOps.NLL_LOSS_FORWARD, new Tensor[] {x.t().t(), target}, new Tensor[] {sum, total}, null,
                ints(list(2), ignore));
        assertEquals(0.3 + 2.5 + 1.8, sum.item(), 1e-6);
        Tensor allIgnored = Tensor.zeros();
        call(KernelOps.NLL_LOSS_FORWARD, new Tensor[] {x, Tensor.ofLongs(new long[] {7, 7, 7, 7}, 4)},
                new Tensor[] {allIgnored, total}, null, ints(list(1), list(7)));
        assertTrue("mean of nothing is NaN, as torch", Float.isNaN(allIgnored.item()));
    }

    @Test
    public void nllLossBackwardPutsTheGradientOnTheTargetClass() {
        Tensor x = Tensor.of(LOG_PROBS, 4, 3);
        Tensor target = Tensor.ofLongs(new long[] {1, 2, 0, 2}, 4);
        Tensor grad = Tensor.zeros(4, 3);
        call(KernelOps.NLL_LOSS_BACKWARD, new Tensor[] {Tensor.scalar(2), x, target, Tensor.scalar(3)},
                new Tensor[] {grad}, null, ints(list(1), list(2)));
        float third = -2f / 3;
        assertArrayEquals("mean, class 2 ignored", new float[] {0, third, 0, 0, 0, 0, third, 0, 0, 0, 0, 0},
                grad.toFloatArray(), 1e-7f);
        Tensor perSample = Tensor.zeros(4, 3);
        call(KernelOps.NLL_LOSS_BACKWARD, new Tensor[] {Tensor.of(new float[] {1, 2, 3, 4}, 4), x, target,
            Tensor.scalar(4)}, new Tensor[] {perSample}, null, ints(list(0), list(-100)));
        assertArrayEquals("none", new float[] {0, -1, 0, 0, 0, -2, -3, 0, 0, 0, 0, -4}, perSample.toFloatArray(),
                0);
    }

    @Test
    public void nllLossRejectsATargetOutsideTheClasses() {
        IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, () -> call(
                KernelOps.NLL_LOSS_FORWARD, new Tensor[] {Tensor.of(LOG_PROBS, 4, 3),
                    Tensor.ofLongs(new long[] {0, 3, 0, 0}, 4)}, new Tensor[] {Tensor.zeros(), Tensor.zeros()},
                null, ints(list(1), list(-100))));
        assertEquals("aten::nll_loss_forward: target 3 of sample 1 is out of bounds for 3 classes", e.getMessage());
    }

    // ---------------------------------------------------------------- dropout

    private Tensor[] dropout(Tensor x, double p, long seed) {
        Tensor[] out = {Tensor.zeros(x.shape()), zeros(DType.BOOL, x.shape())};
        call(KernelOps.NATIVE_DROPOUT, new Tensor[] {x}, out, new double[] {p, seed}, null);
        return out;
    }

    @Test
    public void dropoutKeepsAboutOneMinusPAndScalesWhatItKeeps() {
        Tensor x = rand(7, 200, 100);
        Tensor[] out = dropout(x, 0.3, 42);
        float[] xv = read(x);
        float[] y = out[0].toFloatArray();
        boolean[] mask = out[1].storage().bools();
        int kept = 0;
        for (int i = 0; i < y.length; i++) {
            kept += mask[i] ? 1 : 0;
            assertEquals(mask[i] ? xv[i] / 0.7 : 0, y[i], 1e-6);
        }
        // 20000 draws: the standard deviation of the kept fraction is 0.0032
        assertEquals(0.7, kept / 20000.0, 0.015);
    }

    @Test
    public void dropoutIsAFunctionOfTheSeedAndPositionOnly() {
        Tensor x = rand(8, 64, 32);
        boolean[] first = dropout(x, 0.5, 1234)[1].storage().bools();
        boolean[] again = dropout(x.t().t(), 0.5, 1234)[1].storage().bools();
        boolean[] other = dropout(x, 0.5, 1235)[1].storage().bools();
        assertArrayEquals(first, again);
        assertFalse(java.util.Arrays.equals(first, other));
        boolean[] all = dropout(x, 0, 9)[1].storage().bools();
        boolean[] none = dropout(x, 1, 9)[1].storage().bools();
        for (int i = 0; i < all.length; i++) {
            assertTrue(all[i]);
            assertFalse(none[i]);
        }
    }

    @Test
    public void dropoutBackwardMasksAndScalesTheGradient() {
        Tensor g = rand(9, 2, 3).t();
        Tensor mask = Tensor.ofBools(new boolean[] {true, false, false, true, true, false}, 3, 2);
        float[] out = run(KernelOps.NATIVE_DROPOUT_BACKWARD, new Tensor[] {g, mask}, new double[] {2.5}, null, 3, 2)
                .toFloatArray();
        float[] gv = read(g);
        boolean[] m = mask.storage().bools();
        for (int i = 0; i < 6; i++) {
            assertEquals(m[i] ? gv[i] * 2.5f : 0f, out[i], 1e-6);
        }
    }
}
