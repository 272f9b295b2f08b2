package dev.vantage.tensor;

import java.util.Arrays;
import java.util.Objects;

import dev.vantage.tensor.spi.KernelOps;

/**
 * Elementwise ops, with broadcasting, their in-place forms and their gradients: for each, its kernel and inputs, its
 * shape rule and its backward ({@link Op} runs them). The scalars each kernel takes are documented in
 * {@link KernelOps}: {@code aten::add} takes {@code (value, alpha)}, and adds {@code value} when the second input is
 * absent.
 */
final class Pointwise {

    private static final double[] ADD_ONE = {0, 1};
    private static final double[] NO_VALUE = {0};

    /**
     * Two float inputs broadcast together; the result shares input 0's sizes array when it has that shape, as it
     * does in most calls: shapes are never written once made.
     */
    private static class Broadcast extends Op {
        Broadcast(Spec spec) {
            super(spec);
        }

        @Override
        int[] shape(Tensor[] in, double[] scalars, long[][] ints) {
            Tensor a = in[0];
            Tensor b = in.length > 1 ? in[1] : null;
            if (a.storage.dtype() != DType.FLOAT32 || b != null && b.storage.dtype() != DType.FLOAT32) {
                requireFloat(a, b);
            }
            return b == null || a.sizes == b.sizes || Arrays.equals(a.sizes, b.sizes) ? a.sizes
                    : Shapes.broadcast(name, a.sizes, b.sizes, a.device());
        }
    }

    static final Op ADD = new Broadcast(Op.kernel(KernelOps.ADD).shows(2, 1, 0).backward("AddBackward0")) {
        @Override
        Tensor[] backward(Node n, Tensor g) {
            double alpha = n.scalar(1);
            return grads(sumTo(g, n.size(0)), sumTo(alpha == 1 ? g : g.mul(alpha), n.size(1)));
        }
    };

    static final Op ADD_SCALAR = new Broadcast(Op.kernel(KernelOps.ADD).shows(1, 2, 0).backward("AddBackward1")) {
        @Override
        Tensor[] backward(Node n, Tensor g) {
            return grads(g);
        }
    };

    static final Op SUB = new Broadcast(Op.kernel(KernelOps.SUB).shows(2, 1, 0).backward("SubBackward0")) {
        @Override
        Tensor[] backward(Node n, Tensor g) {
            return grads(sumTo(g, n.size(0)), sumTo(g.neg(), n.size(1)));
        }
    };

    static final Op MUL = new Broadcast(Op.kernel(KernelOps.MUL).shows(2, 0, 0).backward("MulBackward0")) {
        @Override
        int saves(Tensor[] in) {
            return (in[1].requiresGrad ? 1 : 0) | (in[0].requiresGrad ? 2 : 0);
        }

        @Override
        Tensor[] backward(Node n, Tensor g) {
            return grads(n.needs(0) ? sumTo(g.mul(n.input(1)), n.size(0)) : null,
                    n.needs(1) ? sumTo(g.mul(n.input(0)), n.size(1)) : null);
        }
    };

    static final Op MUL_SCALAR = new Broadcast(Op.kernel(KernelOps.MUL).shows(1, 1, 0).backward("MulBackward1")) {
        @Override
        Tensor[] backward(Node n, Tensor g) {
            return grads(g.mul(n.scalar(0)));
        }
    };

    static final Op DIV = new Broadcast(Op.kernel(KernelOps.DIV).shows(2, 0, 0).backward("DivBackward0")) {
        @Override
        int saves(Tensor[] in) {
            return 2 | (in[1].requiresGrad ? 1 : 0);
        }

        @Override
        Tensor[] backward(Node n, Tensor g) {
            Tensor y = n.input(1);
            return grads(n.needs(0) ? sumTo(g.div(y), n.size(0)) : null,
                    n.needs(1) ? sumTo(g.neg().mul(n.input(0)).div(y.mul(y)), n.size(1)) : null);
        }
    };

    static final Op POW = new Broadcast(Op.kernel(KernelOps.POW).shows(1, 1, 0).backward("PowBackward0")) {
        @Override
        int saves(Tensor[] in) {
            return 1;
        }

        @Override
        Tensor[] backward(Node n, Tensor g) {
            Tensor x = n.input(0);
            double e = n.scalar(0);
            return grads(e == 2 ? g.mul(x.mul(2.0)) : g.mul(x.pow(e - 1).mul(e)));
        }
    };

    /** A one-input op whose gradient needs its input ({@code log}, {@code gelu}) or its result. */
    private abstract static class Unary extends Broadcast {
        private final boolean savesInput;

        Unary(String kernel, boolean savesInput) {
            super(Op.kernel(kernel).shows(1, 0, 0).backward(backwardName(kernel)));
            this.savesInput = savesInput;
        }

        @Override
        int saves(Tensor[] in) {
            return savesInput ? 1 : OUT0;
        }

        /** Input 0 or output 0, whichever the op saved. */
        static Tensor saved(Node n) {
            return ((Unary) n.op).savesInput ? n.input(0) : n.output(0);
        }
    }

    static final Op NEG = new Broadcast(Op.kernel(KernelOps.NEG).shows(1, 0, 0).backward("NegBackward0")) {
        @Override
        Tensor[] backward(Node n, Tensor g) {
            return grads(g.neg());
        }
    };

    static final Op EXP = new Unary(KernelOps.EXP, false) {
        @Override
        Tensor[] backward(Node n, Tensor g) {
            return grads(g.mul(saved(n)));
        }
    };

    static final Op LOG = new Unary(KernelOps.LOG, true) {
        @Override
        Tensor[] backward(Node n, Tensor g) {
            return grads(g.div(saved(n)));
        }
    };

    static final Op SQRT = new Unary(KernelOps.SQRT, false) {
        @Override
        Tensor[] backward(Node n, Tensor g) {
            return grads(g.div(saved(n).mul(2.0)));
        }
    };

    static final Op RELU = new Unary(KernelOps.RELU, false) {
        @Override
        Tensor[] backward(Node n, Tensor g) {
            return grads(THRESHOLD_BACKWARD.call(new Tensor[] {g, saved(n)}, NO_VALUE, null, null));
        }
    };

    static final Op GELU = new Unary(KernelOps.GELU, true) {
        @Override
        Tensor[] backward(Node n, Tensor g) {
            return grads(GELU_BACKWARD.call(new Tensor[] {g, saved(n)}, null, null, null));
        }
    };

    static final Op TANH = new Unary(KernelOps.TANH, false) {
        @Override
        Tensor[] backward(Node n, Tensor g) {
            return grads(TANH_BACKWARD.call(new Tensor[] {g, saved(n)}, null, null, null));
        }
    };

    static final Op SIGMOID = new Unary(KernelOps.SIGMOID, false) {
        @Override
        Tensor[] backward(Node n, Tensor g) {
            return grads(SIGMOID_BACKWARD.call(new Tensor[] {g, saved(n)}, null, null, null));
        }
    };

    /** The gradient kernels of activations: {@code (grad, saved)} of one shape to the input's gradient. */
    private static final class Activation extends Op {
        Activation(String kernel, int scalars) {
            super(Op.kernel(kernel).shows(2, scalars, 0));
        }

        @Override
        int[] shape(Tensor[] in, double[] scalars, long[][] ints) {
            if (!Arrays.equals(in[0].sizes, in[1].sizes)) {
                throw new IllegalArgumentException(name + ": shapes " + describe(in[0], in[1]) + " differ");
            }
            return in[0].sizes;
        }
    }

    static final Op THRESHOLD_BACKWARD = new Activation(KernelOps.THRESHOLD_BACKWARD, 1);
    static final Op GELU_BACKWARD = new Activation(KernelOps.GELU_BACKWARD, 0);
    static final Op TANH_BACKWARD = new Activation(KernelOps.TANH_BACKWARD, 0);
    static final Op SIGMOID_BACKWARD = new Activation(KernelOps.SIGMOID_BACKWARD, 0);

    /** {@code self = self op (other or value)}: other, when given, broadcasts to self's shape. */
    private static final class InPlace extends Op {
        InPlace(String name, String kernel, int tensors, int scalars) {
            super(Op.runs(name, kernel).inPlace().shows(tensors, scalars, 0));
        }

        @Override
        int[] shape(Tensor[] in, double[] scalars, long[][] ints) {
            Tensor self = in[0];
            requireFloat(in);
            for (int i = 1; i < in.length; i++) {
                Tensor t = in[i];
                if (t != null && !Arrays.equals(Shapes.broadcast(name, self.sizes, t.sizes, self.device()),
                        self.sizes)) {
                    throw new IllegalArgumentException(name + ": the result of " + describe(self, t)
                            + " does not fit in the first tensor's shape");
                }
            }
            return self.sizes;
        }
    }

    static final Op ADD_ = new InPlace("aten::add_", KernelOps.ADD, 2, 0);
    static final Op ADD_SCALAR_ = new InPlace("aten::add_", KernelOps.ADD, 1, 1);
    static final Op MUL_ = new InPlace("aten::mul_", KernelOps.MUL, 2, 0);
    static final Op MUL_SCALAR_ = new InPlace("aten::mul_", KernelOps.MUL, 1, 1);
    static final Op DIV_ = new InPlace("aten::div_", KernelOps.DIV, 2, 0);
    static final Op ADDCMUL_ = new InPlace("aten::addcmul_", KernelOps.ADDCMUL, 3, 1);
    static final Op ADDCDIV_ = new InPlace("aten::addcdiv_", KernelOps.ADDCDIV, 3, 1);

    private Pointwise() {
    }

    /** {@code a + alpha * b}, broadcasting. */
    static Tensor add(Tensor a, Tensor b, double alpha) {
        Objects.requireNonNull(b, "other");
        return ADD.call(new Tensor[] {a, b}, alpha == 1 ? ADD_ONE : new double[] {0, alpha}, null, null);
    }

    /** {@code a + value}. */
    static Tensor add(Tensor a, double value) {
        return ADD_SCALAR.call(new Tensor[] {a, null}, new double[] {value, 1}, null, null);
    }

    static Tensor sub(Tensor a, Tensor b) {
        Objects.requireNonNull(b, "other");
        return SUB.call(new Tensor[] {a, b}, ADD_ONE, null, null);
    }

    static Tensor mul(Tensor a, Tensor b) {
        Objects.requireNonNull(b, "other");
        return MUL.call(new Tensor[] {a, b}, NO_VALUE, null, null);
    }

    static Tensor mul(Tensor a, double value) {
        return MUL_SCALAR.call(new Tensor[] {a, null}, new double[] {value}, null, null);
    }

    static Tensor div(Tensor a, Tensor b) {
        Objects.requireNonNull(b, "other");
        return DIV.call(new Tensor[] {a, b}, NO_VALUE, null, null);
    }

    static Tensor pow(Tensor a, double exponent) {
        return POW.call(new Tensor[] {a}, new double[] {exponent}, null, null);
    }

    /** A one-input op: {@link #NEG}, {@link #EXP}, {@link #RELU}, ... */
    static Tensor unary(Op op, Tensor a) {
        return op.call(new Tensor[] {a}, null, null, null);
    }

    /** {@code self += alpha * other}, or {@code self += value} when other is null. */
    static Tensor add_(Tensor self, Tensor other, double value, double alpha) {
        return other == null ? ADD_SCALAR_.call(new Tensor[] {self, null}, new double[] {value, 1}, null, null)
                : ADD_.call(new Tensor[] {self, other}, new double[] {0, alpha}, null, null);
    }

    /** {@code self *= other}, or {@code self *= value} when other is null. */
    static Tensor mul_(Tensor self, Tensor other, double value) {
        return other == null ? MUL_SCALAR_.call(new Tensor[] {self, null}, new double[] {value}, null, null)
                : MUL_.call(new Tensor[] {self, other}, NO_VALUE, null, null);
    }

    static Tensor div_(Tensor self, Tensor other) {
        return DIV_.call(new Tensor[] {self, Objects.requireNonNull(other, "other")}, NO_VALUE, null, null);
    }

    /** {@code self += value * t1 (* or /) t2}, as optimizers use. */
    static Tensor addc(Op op, Tensor self, Tensor t1, Tensor t2, double value) {
        return op.call(new Tensor[] {self, t1, t2}, new double[] {value}, null, null);
    }

    /** Sums a broadcast gradient back to an input's shape. */
    static Tensor sumTo(Tensor g, int[] shape) {
        if (Arrays.equals(g.sizes, shape)) {
            return g;
        }
        int lead = g.dim() - shape.length;
        int[] dims = new int[g.dim()];
        int n = 0;
        for (int i = 0; i < g.dim(); i++) {
            if (i < lead || shape[i - lead] == 1 && g.sizes[i] != 1) {
                dims[n++] = i;
            }
        }
        Tensor summed = n == 0 ? g : Reductions.sum(g, Arrays.copyOf(dims, n), true, false);
        return summed.reshape(Shapes.toLongs(shape));
    }

    private static String backwardName(String kernel) {
        String n = kernel.substring("aten::".length());
        return Character.toUpperCase(n.charAt(0)) + n.substring(1) + "Backward0";
    }
}
