package dev.vantage.device.cpu.internal;

import java.util.Arrays;

import dev.vantage.tensor.DType;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.KernelCall;
import dev.vantage.tensor.spi.KernelOps;
import dev.vantage.tensor.spi.KernelRegistry;

/**
 * Neural-network kernels: layer normalisation, the negative log-likelihood loss and dropout, with their
 * gradients. Statistics and sums are computed in double. Inputs are packed row-major first; outputs are written
 * through {@link Strided#target}. Stateless.
 */
final class NnKernels {

    private static final long GOLDEN_GAMMA = 0x9e3779b97f4a7c15L;

    private NnKernels() {
    }

    static void register(KernelRegistry r) {
        r.register(KernelOps.NATIVE_LAYER_NORM, NnKernels::layerNorm);
        r.register(KernelOps.NATIVE_LAYER_NORM_BACKWARD, NnKernels::layerNormBackward);
        r.register(KernelOps.NLL_LOSS_FORWARD, NnKernels::nllLoss);
        r.register(KernelOps.NLL_LOSS_BACKWARD, NnKernels::nllLossBackward);
        r.register(KernelOps.NATIVE_DROPOUT, NnKernels::dropout);
        r.register(KernelOps.NATIVE_DROPOUT_BACKWARD, NnKernels::dropoutBackward);
    }

    // ---------------------------------------------------------------- layer norm

    /**
     * Checks the normalized shape against the input, weight and bias, and returns {outer, inner}: how many rows
     * are normalised and how long each is.
     */
    private static int[] rows(KernelCall c, Tensor x, Tensor weight, Tensor bias) {
        String op = c.op();
        long[] normalized = c.ints(0);
        int k = normalized.length;
        int[] sizes = x.sizes();
        boolean fits = k >= 1 && k <= sizes.length;
        int inner = 1;
        int[] shape = new int[k];
        for (int i = 0; fits && i < k; i++) {
            shape[i] = sizes[sizes.length - k + i];
            fits = shape[i] == normalized[i];
            inner *= shape[i];
        }
        fits = fits && (weight == null || Arrays.equals(weight.sizes(), shape))
                && (bias == null || Arrays.equals(bias.sizes(), shape));
        if (!fits) {
            throw new IllegalArgumentException(op + ": normalized shape " + Arrays.toString(normalized)
                    + " does not fit input " + Strided.describe(x) + ", weight " + Strided.describe(weight)
                    + " and bias " + Strided.describe(bias));
        }
        return new int[] {inner == 0 ? 0 : x.numel() / inner, inner};
    }

    /** The shape of mean and rstd: the input's with the normalized dimensions set to 1. */
    private static int[] statShape(Tensor x, int k) {
        int[] s = x.sizes();
        Arrays.fill(s, s.length - k, s.length, 1);
        return s;
    }

    private static void layerNorm(KernelCall c) {
        String op = c.op();
        Tensor input = c.input(0);
        Tensor weight = c.input(1);
        Tensor bias = c.input(2);
        int[] rows = rows(c, input, weight, bias);
        int inner = rows[1];
        int[] stats = statShape(input, c.ints(0).length);
        Strided.requireShape(op, "output", c.output(0), input.sizes());
        Strided.requireShape(op, "mean", c.output(1), stats);
        Strided.requireShape(op, "rstd", c.output(2), stats);
        float[] x = Strided.packed(op, input);
        float[] w = weight == null ? null : Strided.packed(op, weight);
        float[] b = bias == null ? null : Strided.packed(op, bias);
        double eps = c.scalar(0);
        float[] out = Strided.target(op, c.output(0));
        float[] mean = Strided.target(op, c.output(1));
        float[] rstd = Strided.target(op, c.output(2));
        for (int row = 0; row < rows[0]; row++) {
            int base = row * inner;
            double sum = 0;
            for (int j = 0; j < inner; j++) {
                sum += x[base + j];
            }
            double mu = sum / inner;
            double squares = 0;
            for (int j = 0; j < inner; j++) {
                double d = x[base + j] - mu;
                squares += d * d;
            }
            double rs = 1 / Math.sqrt(squares / inner + eps);
            mean[row] = (float) mu;
            rstd[row] = (float) rs;
            for (int j = 0; j < inner; j++) {
                double y = (x[base + j] - mu) * rs;
                if (w != null) {
                    y *= w[j];
                }
                if (b != null) {
                    y += b[j];
                }
                out[base + j] = (float) y;
            }
        }
        Strided.store(out, c.output(0));
        Strided.store(mean, c.output(1));
        Strided.store(rstd, c.output(2));
    }

    /**
     * With {@code xhat = (x - mean) * rstd} and {@code d = grad * weight}: grad_input = {@code rstd * (d - mean(d)
     * - xhat * mean(d * xhat))}, grad_weight = {@code sum(grad * xhat)}, grad_bias = {@code sum(grad)} over rows.
     */
    private static void layerNormBackward(KernelCall c) {
        String op = c.op();
        Tensor gradOut = c.input(0);
        Tensor input = c.input(1);
        Tensor weight = c.input(4);
        int[] rows = rows(c, input, weight, null);
        int inner = rows[1];
        int[] stats = statShape(input, c.ints(0).length);
        Strided.requireShape(op, "grad_output", gradOut, input.sizes());
        Strided.requireShape(op, "mean", c.input(2), stats);
        Strided.requireShape(op, "rstd", c.input(3), stats);
        Tensor gxOut = c.output(0);
        Tensor gwOut = c.outputCount() > 1 ? c.output(1) : null;
        Tensor gbOut = c.outputCount() > 2 ? c.output(2) : null;
        int[] normalized = Arrays.copyOfRange(input.sizes(), input.dim() - c.ints(0).length, input.dim());
        for (Tensor t : new Tensor[] {gwOut, gbOut}) {
            if (t != null) {
                Strided.requireShape(op, "a parameter gradient", t, normalized);
            }
        }
        float[] g = Strided.packed(op, gradOut);
        float[] x = Strided.packed(op, input);
        float[] mean = Strided.packed(op, c.input(2));
        float[] rstd = Strided.packed(op, c.input(3));
        float[] w = weight == null ? null : Strided.packed(op, weight);
        float[] gx = gxOut == null ? null : Strided.target(op, gxOut);
        double[] gw = new double[inner];
        double[] gb = new double[inner];
        double[] d = new double[inner];
        double[] xhat = new double[inner];
        for (int row = 0; row < rows[0]; row++) {
            int base = row * inner;
            double mu = mean[row];
            double rs = rstd[row];
            double sumD = 0;
            double sumDx = 0;
            for (int j = 0; j < inner; j++) {
                double gj = g[base + j];
                xhat[j] = (x[base + j] - mu) * rs;
                d[j] = w == null ? gj : gj * w[j];
                sumD += d[j];
                sumDx += d[j] * xhat[j];
                gw[j] += gj * xhat[j];
                gb[j] += gj;
            }
            if (gx != null) {
                double meanD = sumD / inner;
                double meanDx = sumDx / inner;
                for (int j = 0; j < inner; j++) {
                    gx[base + j] = (float) (rs * (d[j] - meanD - xhat[j] * meanDx));
                }
            }
        }
        if (gx != null) {
            Strided.store(gx, gxOut);
        }
        storeSums(op, gw, gwOut);
        storeSums(op, gb, gbOut);
    }

    private static void storeSums(String op, double[] sums, Tensor out) {
        if (out == null) {
            return;
        }
        float[] o = Strided.target(op, out);
        for (int j = 0; j < sums.length; j++) {
            o[j] = (float) sums[j];
        }
        Strided.store(o, out);
    }

    // ---------------------------------------------------------------- nll loss

    /** Checks input [N, C], target [N] and the reduction; returns the reduction. */
    private static int checkNll(KernelCall c, Tensor x, Tensor target) {
        String op = c.op();
        if (x.dim() != 2 || target.dim() != 1 || target.size(0) != x.size(0)) {
            throw new IllegalArgumentException(op + ": expected input [N, C] and target [N], got "
                    + Strided.describe(x) + " and " + Strided.describe(target));
        }
        long reduction = c.integer(0);
        if (reduction < 0 || reduction > 2) {
            throw new IllegalArgumentException(op + ": reduction must be 0 (none), 1 (mean) or 2 (sum), not "
                    + reduction);
        }
        return (int) reduction;
    }

    /** The class of sample n, or -1 when ignored; throws when it is not a class of {@code classes}. */
    private static int target(String op, long[] targets, int n, long ignoreIndex, int classes) {
        long t = targets[n];
        if (t == ignoreIndex) {
            return -1;
        }
        if (t < 0 || t >= classes) {
            throw new IndexOutOfBoundsException(op + ": target " + t + " of sample " + n + " is out of bounds for "
                    + classes + " classes");
        }
        return (int) t;
    }

    /**
     * Reduction none gives each sample's loss (0 when ignored); mean divides the sum by the number of samples not
     * ignored (NaN when there are none, as torch); total_weight is that number for every reduction.
     */
    private static void nllLoss(KernelCall c) {
        String op = c.op();
        Tensor input = c.input(0);
        Tensor targetIn = c.input(1);
        int reduction = checkNll(c, input, targetIn);
        long ignore = c.integer(1);
        int samples = input.size(0);
        int classes = input.size(1);
        Strided.requireShape(op, "output", c.output(0), reduction == 0 ? new int[] {samples} : new int[0]);
        Strided.requireShape(op, "total_weight", c.output(1));
        float[] x = Strided.packed(op, input);
        long[] targets = Strided.packedLongs(op, targetIn);
        float[] out = Strided.target(op, c.output(0));
        double sum = 0;
        int counted = 0;
        for (int n = 0; n < samples; n++) {
            int t = target(op, targets, n, ignore, classes);
            double loss = t < 0 ? 0 : -x[n * classes + t];
            if (reduction == 0) {
                out[n] = (float) loss;
            }
            sum += loss;
            counted += t < 0 ? 0 : 1;
        }
        if (reduction != 0) {
            out[0] = (float) (reduction == 1 ? sum / counted : sum);
        }
        Strided.store(out, c.output(0));
        float[] total = Strided.target(op, c.output(1));
        total[0] = counted;
        Strided.store(total, c.output(1));
    }

    /** grad_input[n, target[n]] = -grad (divided by total_weight for mean); zero elsewhere and for ignored rows. */
    private static void nllLossBackward(KernelCall c) {
        String op = c.op();
        Tensor gradOut = c.input(0);
        Tensor input = c.input(1);
        Tensor targetIn = c.input(2);
        Tensor totalWeight = c.input(3);
        int reduction = checkNll(c, input, targetIn);
        long ignore = c.integer(1);
        int samples = input.size(0);
        int classes = input.size(1);
        Strided.requireShape(op, "grad_output", gradOut, reduction == 0 ? new int[] {samples} : new int[0]);
        Strided.requireShape(op, "grad_input", c.output(0), input.sizes());
        float[] grad = Strided.packed(op, gradOut);
        long[] targets = Strided.packedLongs(op, targetIn);
        float weight = Strided.floats(op, totalWeight)[totalWeight.storageOffset()];
        float[] gx = Strided.target(op, c.output(0));
        Arrays.fill(gx, 0f);
        for (int n = 0; n < samples; n++) {
            int t = target(op, targets, n, ignore, classes);
            if (t >= 0) {
                float g = grad[reduction == 0 ? n : 0];
                gx[n * classes + t] = reduction == 1 ? -g / weight : -g;
            }
        }
        Strided.store(gx, c.output(0));
    }

    // ---------------------------------------------------------------- dropout

    /**
     * A uniform double in [0, 1) for element {@code index} under {@code seed}: SplittableRandom's mix64 finaliser
     * of the index's Weyl-sequence value, so the mask depends on nothing but the seed and the position.
     */
    static double uniform(long seed, long index) {
        long z = seed + (index + 1) * GOLDEN_GAMMA;
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        z ^= z >>> 31;
        return (z >>> 11) * 0x1.0p-53;
    }

    /** Keeps element i when {@code uniform(seed, i) >= p}, i counted row-major; kept values scale by 1 / (1 - p). */
    private static void dropout(KernelCall c) {
        String op = c.op();
        Tensor input = c.input(0);
        double p = c.scalar(0);
        if (!(p >= 0 && p <= 1)) {
            throw new IllegalArgumentException(op + ": p must be in [0, 1], not " + p);
        }
        long seed = (long) c.scalar(1);
        Strided.requireShape(op, "output", c.output(0), input.sizes());
        Strided.requireShape(op, "mask", c.output(1), input.sizes());
        float[] x = Strided.packed(op, input);
        float[] out = Strided.target(op, c.output(0));
        boolean[] mask = Strided.targetBools(op, c.output(1));
        float scale = (float) (1 / (1 - p));
        for (int i = 0; i < x.length; i++) {
            boolean keep = p < 1 && uniform(seed, i) >= p;
            mask[i] = keep;
            out[i] = keep ? x[i] * scale : 0f;
        }
        Strided.store(out, c.output(0));
        Strided.store(mask, c.output(1));
    }

    private static void dropoutBackward(KernelCall c) {
        String op = c.op();
        Tensor gradOut = c.input(0);
        Tensor maskIn = c.input(1);
        Tensor out = c.output(0);
        Strided.requireType(op, maskIn, DType.BOOL);
        float[] g = Strided.floats(op, gradOut);
        boolean[] mask = maskIn.storage().bools();
        float[] o = Strided.floats(op, out);
        float scale = (float) c.scalar(0);
        Strided s = Strided.of(op, out.sizes(), out, gradOut, maskIn);
        int os = s.step(0);
        int gs = s.step(1);
        int ms = s.step(2);
        s.forEach((at, n) -> {
            for (int i = 0, oi = at[0], gi = at[1], mi = at[2]; i < n; i++, oi += os, gi += gs, mi += ms) {
                o[oi] = mask[mi] ? g[gi] * scale : 0f;
            }
        });
    }
}
