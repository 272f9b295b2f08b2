package dev.vantage.device.cpu.internal;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.function.DoubleUnaryOperator;

import org.junit.Test;

import dev.vantage.tensor.DType;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.KernelOps;

/** Elementwise kernels against per-element formulas, on dense, transposed, broadcast and in-place operands. */
public class PointwiseKernelsTest extends KernelTestSupport {

    private Tensor unary(String op, Tensor x, double... scalars) {
        return run(op, new Tensor[] {x}, scalars, null, x.shape());
    }

    private static double[] apply(float[] x, DoubleUnaryOperator f) {
        double[] y = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            y[i] = f.applyAsDouble(x[i]);
        }
        return y;
    }

    private void checkUnary(String op, Tensor x, DoubleUnaryOperator f, double... scalars) {
        assertClose(op, apply(read(x), f), unary(op, x, scalars).toFloatArray(), 2e-7, 1e-7);
    }

    @Test
    public void unaryOpsMatchTheirFormulasOnDenseAndTransposedInput() {
        Tensor dense = rand(1, 7, 9);
        Tensor transposed = rand(2, 9, 7).t();
        Tensor positive = Tensor.of(random(3, 63, 0.01, 5), 9, 7).t();
        for (Tensor x : new Tensor[] {dense, transposed}) {
            checkUnary(KernelOps.NEG, x, v -> -v);
            checkUnary(KernelOps.EXP, x, Math::exp);
            checkUnary(KernelOps.RELU, x, v -> Math.max(v, 0));
            checkUnary(KernelOps.TANH, x, Math::tanh);
            checkUnary(KernelOps.SIGMOID, x, v -> 1 / (1 + Math.exp(-v)));
            checkUnary(KernelOps.GELU, x, ReferenceMath::gelu);
            checkUnary(KernelOps.POW, x, v -> v * v, 2);
            checkUnary(KernelOps.POW, x, v -> v * v * v, 3);
        }
        checkUnary(KernelOps.LOG, positive, Math::log);
        checkUnary(KernelOps.SQRT, positive, Math::sqrt);
        checkUnary(KernelOps.POW, positive, v -> Math.pow(v, -1.5), -1.5);
    }

    @Test
    public void geluKeepsItsRelativeAccuracyInTheNegativeTail() {
        float[] x = {-9, -7.5f, -6, -4.25f, -3, -1e-3f, 0, 1e-3f, 2.5f, 6};
        double[] expected = apply(x, ReferenceMath::gelu);
        assertClose("gelu", expected, unary(KernelOps.GELU, Tensor.of(x, x.length)).toFloatArray(), 3e-7, 1e-30);
        Tensor grad = Tensor.of(random(4, x.length, 0.5, 1.5), x.length);
        Tensor out = run(KernelOps.GELU_BACKWARD, new Tensor[] {grad, Tensor.of(x, x.length)}, new double[] {0},
                null, x.length);
        double[] dx = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            // a central difference of the reference, which agrees with its derivative to ~1e-9 at this step
            double h = 1e-4;
            double numeric = (ReferenceMath.gelu(x[i] + h) - ReferenceMath.gelu(x[i] - h)) / (2 * h);
            assertEquals(numeric, ReferenceMath.geluDerivative(x[i]), 1e-7);
            dx[i] = get(grad, i) * ReferenceMath.geluDerivative(x[i]);
        }
        assertClose("gelu_backward", dx, out.toFloatArray(), 3e-7, 1e-30);
    }

    @Test
    public void activationGradientsMatchTheirFormulas() {
        Tensor g = rand(5, 4, 6);
        Tensor x = rand(6, 6, 4).t();
        Tensor y = Tensor.of(random(7, 24, 0, 1), 4, 6);
        float[] gv = read(g);
        float[] xv = read(x);
        float[] yv = read(y);
        double[] threshold = new double[24];
        double[] tanh = new double[24];
        double[] sigmoid = new double[24];
        for (int i = 0; i < 24; i++) {
            threshold[i] = xv[i] > 0.25f ? gv[i] : 0;
            tanh[i] = gv[i] * (1 - (double) yv[i] * yv[i]);
            sigmoid[i] = gv[i] * yv[i] * (1 - (double) yv[i]);
        }
        assertClose("threshold_backward", threshold, run(KernelOps.THRESHOLD_BACKWARD, new Tensor[] {g, x},
                new double[] {0.25}, null, 4, 6).toFloatArray(), 0, 0);
        assertClose("tanh_backward", tanh, run(KernelOps.TANH_BACKWARD, new Tensor[] {g, y}, new double[] {0},
                null, 4, 6).toFloatArray(), 1e-6, 1e-7);
        assertClose("sigmoid_backward", sigmoid, run(KernelOps.SIGMOID_BACKWARD, new Tensor[] {g, y},
                new double[] {0}, null, 4, 6).toFloatArray(), 1e-6, 1e-7);
    }

    @Test
    public void binaryOpsBroadcastAColumnAgainstARow() {
        Tensor column = rand(8, 4, 1);
        Tensor row = Tensor.of(random(9, 3, 0.5, 2), 3);
        double[] add = new double[12];
        double[] sub = new double[12];
        double[] mul = new double[12];
        double[] div = new double[12];
        for (int i = 0; i < 4; i++) {
            for (int j = 0; j < 3; j++) {
                double a = get(column, i, 0);
                double b = get(row, j);
                add[i * 3 + j] = a + 2 * b;
                sub[i * 3 + j] = a - 0.5 * b;
                mul[i * 3 + j] = a * b;
                div[i * 3 + j] = a / b;
            }
        }
        Tensor[] in = {column, row};
        assertClose("add", add, run(KernelOps.ADD, in, new double[] {0, 2}, null, 4, 3).toFloatArray(), 1e-6, 1e-7);
        assertClose("sub", sub, run(KernelOps.SUB, in, new double[] {0, 0.5}, null, 4, 3).toFloatArray(), 1e-6,
                1e-7);
        assertClose("mul", mul, run(KernelOps.MUL, in, new double[] {0}, null, 4, 3).toFloatArray(), 1e-6, 1e-7);
        assertClose("div", div, run(KernelOps.DIV, in, new double[] {0}, null, 4, 3).toFloatArray(), 1e-6, 1e-7);
    }

    @Test
    public void binaryOpsReadTransposedAndExpandedViews() {
        Tensor a = rand(10, 5, 3).t();                          // [3, 5], strides [1, 3]
        Tensor b = rand(11, 1, 5).expand(3, 5);                 // stride 0 along rows
        float[] av = read(a);
        float[] bv = read(b);
        double[] expected = new double[15];
        for (int i = 0; i < 15; i++) {
            expected[i] = av[i] * bv[i];
        }
        assertClose("mul", expected, run(KernelOps.MUL, new Tensor[] {a, b}, new double[] {0}, null, 3, 5)
                .toFloatArray(), 1e-6, 0);
    }

    @Test
    public void aNullSecondInputMeansTheScalar() {
        Tensor a = rand(12, 2, 3);
        float[] av = read(a);
        double[] add = apply(av, v -> v + 2 * 2.5);
        double[] mul = apply(av, v -> v * -3);
        double[] div = apply(av, v -> v / 4);
        assertClose("add", add, run(KernelOps.ADD, new Tensor[] {a, null}, new double[] {2.5, 2}, null, 2, 3)
                .toFloatArray(), 1e-6, 1e-7);
        assertClose("mul", mul, run(KernelOps.MUL, new Tensor[] {a, null}, new double[] {-3}, null, 2, 3)
                .toFloatArray(), 1e-6, 1e-7);
        assertClose("div", div, read(run(KernelOps.DIV, new Tensor[] {a.t(), null}, new double[] {4}, null, 3, 2)
                .t()), 1e-6, 1e-7);
    }

    @Test
    public void inPlaceAddWritesThroughAStridedViewAndNothingElse() {
        Tensor base = rand(13, 4, 6);
        float[] before = base.toFloatArray().clone();
        Tensor view = base.slice(1, 1, 5).t();                  // [4, 4] of columns 1..4, transposed
        Tensor other = rand(14, 4);                             // broadcast over the view's rows
        call(KernelOps.ADD, new Tensor[] {view, other}, new Tensor[] {view}, new double[] {0, -1}, null);
        float[] after = base.toFloatArray();
        for (int i = 0; i < 4; i++) {
            for (int j = 0; j < 6; j++) {
                float expected = j >= 1 && j < 5 ? before[i * 6 + j] - get(other, i) : before[i * 6 + j];
                assertEquals("base[" + i + "][" + j + "]", expected, after[i * 6 + j], 1e-6);
            }
        }
    }

    @Test
    public void inPlaceWithAnOverlappingOperandReadsTheOriginalValues() {
        float[] v = {1, 2, 3, 4, 5, 6, 7, 8, 9};
        Tensor self = Tensor.of(v.clone(), 3, 3);
        call(KernelOps.ADD, new Tensor[] {self, self.t()}, new Tensor[] {self}, new double[] {0, 1}, null);
        float[] expected = new float[9];
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++) {
                expected[i * 3 + j] = v[i * 3 + j] + v[j * 3 + i];
            }
        }
        assertArrayEquals(expected, self.toFloatArray(), 0);
    }

    @Test
    public void addcmulAndAddcdivUpdateAViewInPlaceWithBroadcastOperands() {
        Tensor base = rand(15, 3, 2);
        Tensor self = base.t();                                 // [2, 3]
        Tensor t1 = rand(16, 3);
        Tensor t2 = Tensor.of(random(17, 2, 1, 2), 2, 1);
        float[] s0 = read(self);
        call(KernelOps.ADDCMUL, new Tensor[] {self, t1, t2}, new Tensor[] {self}, new double[] {0.5}, null);
        float[] s1 = read(self);
        call(KernelOps.ADDCDIV, new Tensor[] {self, t1, t2}, new Tensor[] {self}, new double[] {-2}, null);
        float[] s2 = read(self);
        for (int i = 0; i < 2; i++) {
            for (int j = 0; j < 3; j++) {
                double p = get(t1, j);
                double q = get(t2, i, 0);
                assertEquals(s0[i * 3 + j] + 0.5 * p * q, s1[i * 3 + j], 1e-6);
                assertEquals(s1[i * 3 + j] - 2 * p / q, s2[i * 3 + j], 1e-5);
            }
        }
    }

    @Test
    public void fillAndZeroWriteOnlyTheView() {
        Tensor base = Tensor.of(random(18, 16, 1, 2), 4, 4);
        float[] before = base.toFloatArray().clone();
        Tensor column = base.slice(1, 2, 3);                     // [4, 1], stride 4
        call(KernelOps.FILL_, new Tensor[] {column}, new Tensor[] {column}, new double[] {7.5}, null);
        for (int i = 0; i < 16; i++) {
            assertEquals(i % 4 == 2 ? 7.5f : before[i], base.toFloatArray()[i], 0);
        }
        Tensor longs = Tensor.ofLongs(new long[] {1, 2, 3, 4, 5, 6}, 2, 3);
        Tensor row = longs.slice(0, 1, 2);
        call(KernelOps.ZERO_, new Tensor[] {row}, new Tensor[] {row}, null, null);
        assertArrayEquals(new long[] {1, 2, 3, 0, 0, 0}, longs.storage().longs());
        Tensor bools = zeros(DType.BOOL, 3);
        call(KernelOps.FILL_, new Tensor[] {bools}, new Tensor[] {bools}, new double[] {2}, null);
        assertArrayEquals(new boolean[] {true, true, true}, bools.storage().bools());
    }

    @Test
    public void copyConvertsDtypesFromAStridedSource() {
        Tensor src = Tensor.of(new float[] {1.7f, -2.3f, 0, 0.4f, -0.9f, 3}, 3, 2).t(); // [[1.7, 0, -0.9], ...]
        Tensor longs = zeros(DType.INT64, 2, 3);
        call(KernelOps.COPY_, new Tensor[] {longs, src}, new Tensor[] {longs}, null, null);
        assertArrayEquals("float to long truncates", new long[] {1, 0, 0, -2, 0, 3}, longs.storage().longs());
        Tensor bools = zeros(DType.BOOL, 2, 3);
        call(KernelOps.COPY_, new Tensor[] {bools, src}, new Tensor[] {bools}, null, null);
        assertArrayEquals(new boolean[] {true, false, true, true, true, true}, bools.storage().bools());
        Tensor floats = Tensor.zeros(2, 3);
        call(KernelOps.COPY_, new Tensor[] {floats, longs.t().t()}, new Tensor[] {floats}, null, null);
        assertArrayEquals(new float[] {1, 0, 0, -2, 0, 3}, floats.toFloatArray(), 0);
        call(KernelOps.COPY_, new Tensor[] {floats, bools}, new Tensor[] {floats}, null, null);
        assertArrayEquals(new float[] {1, 0, 1, 1, 1, 1}, floats.toFloatArray(), 0);
        Tensor fromBools = zeros(DType.INT64, 2, 3);
        call(KernelOps.COPY_, new Tensor[] {fromBools, bools}, new Tensor[] {fromBools}, null, null);
        assertArrayEquals(new long[] {1, 0, 1, 1, 1, 1}, fromBools.storage().longs());
        Tensor toBools = zeros(DType.BOOL, 2, 3);
        call(KernelOps.COPY_, new Tensor[] {toBools, longs}, new Tensor[] {toBools}, null, null);
        assertArrayEquals(new boolean[] {true, false, false, true, false, true}, toBools.storage().bools());
    }

    @Test
    public void copyBroadcastsTheSourceIntoAView() {
        Tensor base = Tensor.zeros(3, 4);
        Tensor view = base.slice(1, 1, 4);                       // [3, 3]
        Tensor row = Tensor.of(new float[] {1, 2, 3}, 3);
        call(KernelOps.COPY_, new Tensor[] {view, row}, new Tensor[] {view}, null, null);
        assertArrayEquals(new float[] {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3}, base.toFloatArray(), 0);
    }

    @Test
    public void copyOntoAnOverlappingViewReadsTheSourceFirst() {
        Tensor base = Tensor.of(new float[] {1, 2, 3, 4, 5}, 5);
        Tensor dst = base.slice(0, 1, 5);
        Tensor src = base.slice(0, 0, 4);
        call(KernelOps.COPY_, new Tensor[] {dst, src}, new Tensor[] {dst}, null, null);
        assertArrayEquals(new float[] {1, 1, 2, 3, 4}, base.toFloatArray(), 0);
        Tensor square = Tensor.of(new float[] {1, 2, 3, 4, 5, 6, 7, 8, 9}, 3, 3);
        call(KernelOps.COPY_, new Tensor[] {square, square.t()}, new Tensor[] {square}, null, null);
        assertArrayEquals(new float[] {1, 4, 7, 2, 5, 8, 3, 6, 9}, square.toFloatArray(), 0);
    }

    @Test
    public void rejectsShapesThatDoNotBroadcastNamingTheOp() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> run(KernelOps.ADD,
                new Tensor[] {rand(1, 2, 3), rand(2, 4)}, new double[] {0, 1}, null, 2, 3));
        assertTrue(e.getMessage(), e.getMessage().startsWith("aten::add: [4] float does not broadcast to [2, 3]"));
        IllegalArgumentException dtype = assertThrows(IllegalArgumentException.class, () -> run(KernelOps.EXP,
                new Tensor[] {Tensor.ofLongs(new long[] {1}, 1)}, null, null, 1));
        assertEquals("aten::exp: expected a float tensor, got [1] long", dtype.getMessage());
    }
}
