package dev.vantage.device.cpu.internal;

import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.KernelCall;
import dev.vantage.tensor.spi.KernelOps;
import dev.vantage.tensor.spi.KernelRegistry;

/**
 * Elementwise float kernels with broadcasting. Each op is a loop over one run of elements with a stride per
 * operand, so the op's arithmetic inlines into its own loop; the drivers call it once for operands that are all
 * dense in the output's shape, and once per innermost run of a {@link Strided} walk otherwise. Arithmetic is in
 * float as torch does, except the transcendental functions, which go through double and round once. Stateless.
 */
final class PointwiseKernels {

    /** One run of a one-input op: {@code o[oi + i*os] = f(x[xi + i*xs])} for {@code i < n}. */
    @FunctionalInterface
    interface Unary {
        void run(float[] x, int xi, int xs, float[] o, int oi, int os, int n);
    }

    /** One run of a two-input op. */
    @FunctionalInterface
    interface Binary {
        void run(float[] x, int xi, int xs, float[] y, int yi, int ys, float[] o, int oi, int os, int n);
    }

    /** One run of a three-input op. */
    @FunctionalInterface
    interface Ternary {
        void run(float[] x, int xi, int xs, float[] y, int yi, int ys, float[] z, int zi, int zs, float[] o, int oi,
                int os, int n);
    }

    private PointwiseKernels() {
    }

    static void register(KernelRegistry r) {
        r.register(KernelOps.ADD, c -> binary(c, addLoop((float) c.scalar(1))));
        r.register(KernelOps.SUB, c -> binary(c, addLoop(-(float) c.scalar(1))));
        r.register(KernelOps.MUL, c -> binary(c, (x, xi, xs, y, yi, ys, o, oi, os, n) -> {
            for (int i = 0; i < n; i++, xi += xs, yi += ys, oi += os) {
                o[oi] = x[xi] * y[yi];
            }
        }));
        r.register(KernelOps.DIV, c -> binary(c, (x, xi, xs, y, yi, ys, o, oi, os, n) -> {
            for (int i = 0; i < n; i++, xi += xs, yi += ys, oi += os) {
                o[oi] = x[xi] / y[yi];
            }
        }));
        r.register(KernelOps.POW, c -> unary(c, powLoop(c.scalar(0))));
        r.register(KernelOps.NEG, c -> unary(c, (x, xi, xs, o, oi, os, n) -> {
            for (int i = 0; i < n; i++, xi += xs, oi += os) {
                o[oi] = -x[xi];
            }
        }));
        r.register(KernelOps.EXP, c -> unary(c, (x, xi, xs, o, oi, os, n) -> {
            for (int i = 0; i < n; i++, xi += xs, oi += os) {
                o[oi] = (float) Math.exp(x[xi]);
            }
        }));
        r.register(KernelOps.LOG, c -> unary(c, (x, xi, xs, o, oi, os, n) -> {
            for (int i = 0; i < n; i++, xi += xs, oi += os) {
                o[oi] = (float) Math.log(x[xi]);
            }
        }));
        r.register(KernelOps.SQRT, c -> unary(c, (x, xi, xs, o, oi, os, n) -> {
            for (int i = 0; i < n; i++, xi += xs, oi += os) {
                o[oi] = (float) Math.sqrt(x[xi]);
            }
        }));
        r.register(KernelOps.RELU, c -> unary(c, (x, xi, xs, o, oi, os, n) -> {
            for (int i = 0; i < n; i++, xi += xs, oi += os) {
                o[oi] = Math.max(x[xi], 0f);   // keeps NaN, as torch's relu does
            }
        }));
        r.register(KernelOps.GELU, c -> unary(c, (x, xi, xs, o, oi, os, n) -> {
            for (int i = 0; i < n; i++, xi += xs, oi += os) {
                double v = x[xi];
                o[oi] = (float) (v * Erf.normalCdf(v));
            }
        }));
        r.register(KernelOps.TANH, c -> unary(c, (x, xi, xs, o, oi, os, n) -> {
            for (int i = 0; i < n; i++, xi += xs, oi += os) {
                o[oi] = (float) Math.tanh(x[xi]);
            }
        }));
        r.register(KernelOps.SIGMOID, c -> unary(c, (x, xi, xs, o, oi, os, n) -> {
            for (int i = 0; i < n; i++, xi += xs, oi += os) {
                o[oi] = (float) (1 / (1 + Math.exp(-(double) x[xi])));
            }
        }));
        r.register(KernelOps.THRESHOLD_BACKWARD, c -> binary(c, thresholdLoop((float) c.scalar(0))));
        r.register(KernelOps.GELU_BACKWARD, c -> binary(c, (g, gi, gs, x, xi, xs, o, oi, os, n) -> {
            for (int i = 0; i < n; i++, gi += gs, xi += xs, oi += os) {
                double v = x[xi];
                o[oi] = (float) (g[gi] * (Erf.normalCdf(v) + v * Erf.normalPdf(v)));
            }
        }));
        r.register(KernelOps.TANH_BACKWARD, c -> binary(c, (g, gi, gs, y, yi, ys, o, oi, os, n) -> {
            for (int i = 0; i < n; i++, gi += gs, yi += ys, oi += os) {
                float v = y[yi];
                o[oi] = g[gi] * (1 - v * v);
            }
        }));
        r.register(KernelOps.SIGMOID_BACKWARD, c -> binary(c, (g, gi, gs, y, yi, ys, o, oi, os, n) -> {
            for (int i = 0; i < n; i++, gi += gs, yi += ys, oi += os) {
                float v = y[yi];
                o[oi] = g[gi] * v * (1 - v);
            }
        }));
        r.register(KernelOps.ADDCMUL, c -> ternary(c, addcmulLoop((float) c.scalar(0))));
        r.register(KernelOps.ADDCDIV, c -> ternary(c, addcdivLoop((float) c.scalar(0))));
    }

    private static Binary addLoop(float alpha) {
        return (x, xi, xs, y, yi, ys, o, oi, os, n) -> {
            for (int i = 0; i < n; i++, xi += xs, yi += ys, oi += os) {
                o[oi] = x[xi] + alpha * y[yi];
            }
        };
    }

    private static Unary powLoop(double exponent) {
        if (exponent == 2) {
            return (x, xi, xs, o, oi, os, n) -> {
                for (int i = 0; i < n; i++, xi += xs, oi += os) {
                    o[oi] = x[xi] * x[xi];
                }
            };
        }
        return (x, xi, xs, o, oi, os, n) -> {
            for (int i = 0; i < n; i++, xi += xs, oi += os) {
                o[oi] = (float) Math.pow(x[xi], exponent);
            }
        };
    }

    private static Binary thresholdLoop(float threshold) {
        return (g, gi, gs, x, xi, xs, o, oi, os, n) -> {
            for (int i = 0; i < n; i++, gi += gs, xi += xs, oi += os) {
                o[oi] = x[xi] > threshold ? g[gi] : 0f;
            }
        };
    }

    private static Ternary addcmulLoop(float value) {
        return (s, si, ss, x, xi, xs, y, yi, ys, o, oi, os, n) -> {
            for (int i = 0; i < n; i++, si += ss, xi += xs, yi += ys, oi += os) {
                o[oi] = s[si] + value * x[xi] * y[yi];
            }
        };
    }

    private static Ternary addcdivLoop(float value) {
        return (s, si, ss, x, xi, xs, y, yi, ys, o, oi, os, n) -> {
            for (int i = 0; i < n; i++, si += ss, xi += xs, yi += ys, oi += os) {
                o[oi] = s[si] + value * x[xi] / y[yi];
            }
        };
    }

    // ---------------------------------------------------------------- drivers

    /**
     * One input: one loop over the arrays when the call is dense (the runtime's usual case, {@link KernelCall#dense}),
     * else a {@link Strided} walk over a copy of an input that overlaps the output in another layout.
     */
    static void unary(KernelCall c, Unary loop) {
        Tensor out = c.output(0);
        if (c.dense()) {
            loop.run(c.floats(0), c.input(0).storageOffset(), 1, c.outputFloats(0), out.storageOffset(), 1,
                    out.numel());
            return;
        }
        String op = c.op();
        Tensor a = Strided.unaliased(c.input(0), out);
        float[] o = Strided.floats(op, out);
        float[] x = Strided.floats(op, a);
        Strided s = Strided.of(op, out.sizes(), out, a);
        int os = s.step(0);
        int xs = s.step(1);
        s.forEach((at, n) -> loop.run(x, at[1], xs, o, at[0], os, n));
    }

    /** Two inputs, or one and {@code scalar(0)} when the second is null; see {@link #unary}. */
    static void binary(KernelCall c, Binary loop) {
        Tensor out = c.output(0);
        boolean scalar = c.input(1) == null;
        if (c.dense()) {
            // two calls, each with constant strides, so that the compiler sees a unit-stride loop in each
            if (scalar) {
                loop.run(c.floats(0), c.input(0).storageOffset(), 1, new float[] {(float) c.scalar(0)}, 0, 0,
                        c.outputFloats(0), out.storageOffset(), 1, out.numel());
            } else {
                loop.run(c.floats(0), c.input(0).storageOffset(), 1, c.floats(1), c.input(1).storageOffset(), 1,
                        c.outputFloats(0), out.storageOffset(), 1, out.numel());
            }
            return;
        }
        String op = c.op();
        Tensor a = Strided.unaliased(c.input(0), out);
        float[] o = Strided.floats(op, out);
        float[] x = Strided.floats(op, a);
        if (scalar) {
            float[] y = {(float) c.scalar(0)};
            Strided s = Strided.of(op, out.sizes(), out, a);
            int os = s.step(0);
            int xs = s.step(1);
            s.forEach((at, n) -> loop.run(x, at[1], xs, y, 0, 0, o, at[0], os, n));
            return;
        }
        Tensor b = Strided.unaliased(c.input(1), out);
        float[] y = Strided.floats(op, b);
        Strided s = Strided.of(op, out.sizes(), out, a, b);
        int os = s.step(0);
        int xs = s.step(1);
        int ys = s.step(2);
        s.forEach((at, n) -> loop.run(x, at[1], xs, y, at[2], ys, o, at[0], os, n));
    }

    /** Three inputs; see {@link #unary}. */
    static void ternary(KernelCall c, Ternary loop) {
        Tensor out = c.output(0);
        if (c.dense()) {
            loop.run(c.floats(0), c.input(0).storageOffset(), 1, c.floats(1), c.input(1).storageOffset(), 1,
                    c.floats(2), c.input(2).storageOffset(), 1, c.outputFloats(0), out.storageOffset(), 1,
                    out.numel());
            return;
        }
        String op = c.op();
        Tensor a = Strided.unaliased(c.input(0), out);
        Tensor b = Strided.unaliased(c.input(1), out);
        Tensor d = Strided.unaliased(c.input(2), out);
        float[] o = Strided.floats(op, out);
        float[] x = Strided.floats(op, a);
        float[] y = Strided.floats(op, b);
        float[] z = Strided.floats(op, d);
        Strided s = Strided.of(op, out.sizes(), out, a, b, d);
        int os = s.step(0);
        int xs = s.step(1);
        int ys = s.step(2);
        int zs = s.step(3);
        s.forEach((at, n) -> loop.run(x, at[1], xs, y, at[2], ys, z, at[3], zs, o, at[0], os, n));
    }
}
