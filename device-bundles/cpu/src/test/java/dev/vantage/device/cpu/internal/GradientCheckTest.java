package dev.vantage.device.cpu.internal;

import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.Function;

import org.junit.ClassRule;
import org.junit.Test;

import dev.vantage.tensor.Functional;
import dev.vantage.tensor.GradMode;
import dev.vantage.tensor.Tensor;

/**
 * Every op with a backward, checked against central finite differences through the real CPU kernels: for a random
 * projection {@code L = sum(f(x) * r)}, the gradient autograd computes for each input equals
 * {@code (L(x + h) - L(x - h)) / 2h} element by element, within float32 tolerance.
 */
public class GradientCheckTest {

    private static final double H = 1e-2;
    private static final double TOLERANCE = 2e-2;
    @ClassRule
    public static final CpuRuntime CPU = new CpuRuntime();

    private static Tensor rand(long seed, long... shape) {
        return Tensor.randn(seed, shape);
    }

    private static Tensor positive(long seed, long... shape) {
        return Tensor.uniform(seed, 0.5f, 2f, shape);
    }

    /** Values far from each other, so max pooling and relu have no ties or kinks within a step of H. */
    private static Tensor spread(long seed, long... shape) {
        int n = (int) Arrays.stream(shape).reduce(1, (a, b) -> a * b);
        float[] v = new float[n];
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < n; i++) {
            v[i] = (i - n / 2f) * 0.1f + 0.05f;
        }
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            float t = v[i];
            v[i] = v[j];
            v[j] = t;
        }
        return Tensor.of(v, shape);
    }

    /** Checks the gradient of {@code f} with respect to every input. */
    private static void check(String op, Function<Tensor[], Tensor> f, Tensor... inputs) {
        for (Tensor in : inputs) {
            in.requiresGrad(true);
        }
        Tensor out = f.apply(inputs);
        float[] r = Tensor.randn(99, out.shape()).toFloatArray();
        Tensor weights = Tensor.of(r, out.shape());
        out.mul(weights).sum().backward();
        for (int k = 0; k < inputs.length; k++) {
            Tensor x = inputs[k];
            assertNotNull(op + ": input " + k + " got no gradient", x.grad());
            float[] analytic = x.grad().toFloatArray();
            float[] values = x.storage().floats();
            for (int i = 0; i < values.length; i++) {
                float saved = values[i];
                values[i] = (float) (saved + H);
                double plus = project(f, inputs, r);
                values[i] = (float) (saved - H);
                double minus = project(f, inputs, r);
                values[i] = saved;
                double numeric = (plus - minus) / (2 * H);
                double error = Math.abs(numeric - analytic[i]);
                assertTrue(op + ": input " + k + " element " + i + ": autograd " + analytic[i] + ", numeric "
                        + numeric, error <= TOLERANCE * (1 + Math.abs(numeric)));
            }
        }
    }

    private static double project(Function<Tensor[], Tensor> f, Tensor[] inputs, float[] r) {
        try (GradMode.Scope off = GradMode.disabled()) {
            float[] y = f.apply(inputs).toFloatArray();
            double s = 0;
            for (int i = 0; i < y.length; i++) {
                s += (double) y[i] * r[i];
            }
            return s;
        }
    }

    @Test
    public void elementwiseArithmeticWithBroadcasting() {
        check("add", t -> t[0].add(t[1], 0.5), rand(1, 3, 4), rand(2, 4));
        check("sub", t -> t[0].sub(t[1]), rand(3, 2, 1, 3), rand(4, 4, 1));
        check("mul", t -> t[0].mul(t[1]), rand(5, 3, 4), rand(6, 3, 1));
        check("div", t -> t[0].div(t[1]), rand(7, 2, 3), positive(8, 3));
        check("add scalar", t -> t[0].add(1.5), rand(9, 5));
        check("mul scalar", t -> t[0].mul(-2.5), rand(10, 5));
    }

    @Test
    public void unaryOps() {
        check("neg", t -> t[0].neg(), rand(11, 6));
        check("exp", t -> t[0].exp(), rand(12, 6));
        check("log", t -> t[0].log(), positive(13, 6));
        check("sqrt", t -> t[0].sqrt(), positive(14, 6));
        check("pow 2", t -> t[0].pow(2), rand(15, 6));
        check("pow 3", t -> t[0].pow(3), rand(16, 6));
        check("relu", t -> t[0].relu(), spread(17, 12));
        check("gelu", t -> t[0].gelu(), rand(18, 12));
        check("tanh", t -> t[0].tanh(), rand(19, 12));
        check("sigmoid", t -> t[0].sigmoid(), rand(20, 12));
    }

    @Test
    public void matrixProducts() {
        check("mm", t -> t[0].mm(t[1]), rand(21, 3, 4), rand(22, 4, 5));
        check("mm of transposed views", t -> t[0].t().mm(t[1].t()), rand(23, 4, 3), rand(24, 5, 4));
        check("bmm", t -> t[0].bmm(t[1]), rand(25, 2, 3, 4), rand(26, 2, 4, 2));
        check("matmul 3-d by 2-d", t -> t[0].matmul(t[1]), rand(27, 2, 3, 4), rand(28, 4, 2));
        check("matmul broadcast batches", t -> t[0].matmul(t[1]), rand(29, 2, 1, 3, 4), rand(30, 3, 4, 2));
        check("matmul vector", t -> t[0].matmul(t[1]), rand(31, 3, 4), rand(32, 4));
        check("linear 2-d (addmm)", t -> Functional.linear(t[0], t[1], t[2]), rand(33, 3, 4), rand(34, 5, 4),
                rand(35, 5));
        check("linear 3-d", t -> Functional.linear(t[0], t[1], t[2]), rand(36, 2, 3, 4), rand(37, 5, 4),
                rand(38, 5));
    }

    @Test
    public void convolutionAndPooling() {
        check("conv2d", t -> Functional.conv2d(t[0], t[1], t[2], 1, 1), rand(41, 2, 2, 5, 5), rand(42, 3, 2, 3, 3),
                rand(43, 3));
        check("conv2d strided", t -> Functional.conv2d(t[0], t[1], t[2], 2, 0), rand(44, 1, 2, 6, 6),
                rand(45, 2, 2, 3, 3), rand(46, 2));
        check("max_pool2d", t -> Functional.maxPool2d(t[0], 2, 2, 0), spread(47, 2, 2, 4, 4));
        check("max_pool2d padded", t -> Functional.maxPool2d(t[0], 3, 2, 1), spread(48, 1, 2, 5, 5));
    }

    @Test
    public void reductionsAndSoftmax() {
        check("sum", t -> t[0].sum(), rand(51, 3, 4));
        check("sum dims", t -> t[0].sum(new int[] {0, 2}, false), rand(52, 2, 3, 4));
        check("sum keepdim", t -> t[0].sum(new int[] {-1}, true), rand(53, 2, 3));
        check("mean", t -> t[0].mean(), rand(54, 3, 4));
        check("mean dims", t -> t[0].mean(new int[] {1}, false), rand(55, 2, 3, 4));
        check("softmax", t -> t[0].softmax(-1), rand(56, 3, 5));
        check("softmax dim 0", t -> t[0].softmax(0), rand(57, 3, 5));
        check("log_softmax", t -> t[0].logSoftmax(1), rand(58, 3, 5));
    }

    @Test
    public void normalisationEmbeddingAndLosses() {
        check("layer_norm", t -> Functional.layerNorm(t[0], new long[] {4}, t[1], t[2], 1e-5), rand(61, 3, 4),
                rand(62, 4), rand(63, 4));
        check("embedding", t -> Functional.embedding(t[0], Tensor.ofLongs(new long[] {1, 3, 1, 0}, 2, 2)),
                rand(64, 5, 3));
        Tensor target = Tensor.ofLongs(new long[] {2, 0, 4}, 3);
        check("cross_entropy", t -> Functional.crossEntropy(t[0], target), rand(65, 3, 5));
        check("nll_loss", t -> Functional.nllLoss(t[0].logSoftmax(1), target), rand(66, 3, 5));
        check("mse_loss", t -> Functional.mseLoss(t[0], t[1]), rand(67, 2, 3), rand(68, 2, 3));
        check("dropout", t -> Functional.dropout(t[0], 0.3, true, 1234), rand(69, 4, 5));
    }

    @Test
    public void viewsJoinsAndGathers() {
        check("view", t -> t[0].view(4, 3).mul(t[0].view(4, 3)), rand(71, 3, 4));
        check("reshape of a transpose", t -> t[0].t().reshape(-1), rand(72, 3, 4));
        check("permute", t -> t[0].permute(2, 0, 1), rand(73, 2, 3, 4));
        check("slice", t -> t[0].slice(1, 1, 3), rand(74, 3, 4));
        check("unsqueeze and squeeze", t -> t[0].unsqueeze(0).squeeze(0).unsqueeze(2), rand(75, 3, 4));
        check("expand", t -> t[0].expand(3, 2, 4), rand(76, 2, 1));
        check("flatten", t -> t[0].flatten(1), rand(77, 2, 3, 2));
        check("contiguous", t -> t[0].t().contiguous(), rand(78, 3, 4));
        check("cat", t -> Tensor.cat(1, t[0], t[1]), rand(79, 2, 3), rand(80, 2, 2));
        check("index_select", t -> t[0].indexSelect(0, Tensor.ofLongs(new long[] {2, 0, 2}, 3)), rand(81, 3, 4));
    }

    @Test
    public void aWholeNetworkAgreesWithFiniteDifferences() {
        Tensor target = Tensor.ofLongs(new long[] {1, 0}, 2);
        check("mlp", t -> Functional.crossEntropy(Functional.linear(Functional.linear(t[0], t[1], t[2]).tanh(),
                t[3], null), target), rand(91, 2, 4), rand(92, 3, 4), rand(93, 3), rand(94, 2, 3));
    }
}
