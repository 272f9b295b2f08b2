package dev.vantage.tensor;

import java.util.Arrays;
import java.util.Objects;

import dev.vantage.tensor.internal.CallFrame;
import dev.vantage.tensor.internal.OpDef;
import dev.vantage.tensor.internal.Ops;
import dev.vantage.tensor.spi.KernelOps;

/** Elementwise ops, with broadcasting, their in-place forms and their gradients. */
final class Pointwise {

    static final OpDef ADD = Ops.kernel(KernelOps.ADD);
    static final OpDef ADD_ = Ops.runs("aten::add_", KernelOps.ADD);
    static final OpDef SUB = Ops.kernel(KernelOps.SUB);
    static final OpDef MUL = Ops.kernel(KernelOps.MUL);
    static final OpDef MUL_ = Ops.runs("aten::mul_", KernelOps.MUL);
    static final OpDef DIV = Ops.kernel(KernelOps.DIV);
    static final OpDef DIV_ = Ops.runs("aten::div_", KernelOps.DIV);
    static final OpDef POW = Ops.kernel(KernelOps.POW);
    static final OpDef NEG = Ops.kernel(KernelOps.NEG);
    static final OpDef EXP = Ops.kernel(KernelOps.EXP);
    static final OpDef LOG = Ops.kernel(KernelOps.LOG);
    static final OpDef SQRT = Ops.kernel(KernelOps.SQRT);
    static final OpDef RELU = Ops.kernel(KernelOps.RELU);
    static final OpDef GELU = Ops.kernel(KernelOps.GELU);
    static final OpDef TANH = Ops.kernel(KernelOps.TANH);
    static final OpDef SIGMOID = Ops.kernel(KernelOps.SIGMOID);
    static final OpDef ADDCMUL_ = Ops.runs("aten::addcmul_", KernelOps.ADDCMUL);
    static final OpDef ADDCDIV_ = Ops.runs("aten::addcdiv_", KernelOps.ADDCDIV);
    static final OpDef THRESHOLD_BACKWARD = Ops.kernel(KernelOps.THRESHOLD_BACKWARD);
    static final OpDef GELU_BACKWARD = Ops.kernel(KernelOps.GELU_BACKWARD);
    static final OpDef TANH_BACKWARD = Ops.kernel(KernelOps.TANH_BACKWARD);
    static final OpDef SIGMOID_BACKWARD = Ops.kernel(KernelOps.SIGMOID_BACKWARD);

    private Pointwise() {
    }

    /** Runs an elementwise kernel into a new tensor of the broadcast shape. {@code b} may be null. */
    private static Tensor compute(OpDef op, Tensor a, Tensor b, double[] scalars) {
        Device device = Exec.device(op.name(), a, b);
        Exec.requireFloat(op.name(), a);
        Exec.requireFloat(op.name(), b);
        int[] shape = b == null ? a.sizes : Shapes.broadcast(op.name(), a, b);
        Tensor out = Exec.empty(device, DType.FLOAT32, shape);
        boolean twoInputs = op == ADD || op == SUB || op == MUL || op == DIV;
        Exec.run(op, device, twoInputs ? new Tensor[] {a, b} : new Tensor[] {a}, new Tensor[] {out}, scalars, null);
        return out;
    }

    static Tensor add(Tensor a, Tensor b, double alpha) {
        Objects.requireNonNull(b, "other");
        boolean grad = Autograd.needs(a, b);
        long seq = grad ? Autograd.nextSequenceNumber() : -1;
        CallFrame f = CallFrame.begin(ADD, seq, 2, a, b, null, 1, 0);
        try {
            Tensor out = compute(ADD, a, b, new double[] {0, alpha});
            if (grad) {
                int[] sa = a.sizes;
                int[] sb = b.sizes;
                Autograd.record(out, seq, "AddBackward0", g -> new Tensor[] {sumTo(g, sa),
                    sumTo(alpha == 1 ? g : g.mul(alpha), sb)}, a, b);
            }
            return out;
        } finally {
            CallFrame.close(f);
        }
    }

    static Tensor addScalar(Tensor a, double value) {
        boolean grad = Autograd.needs(a);
        long seq = grad ? Autograd.nextSequenceNumber() : -1;
        CallFrame f = CallFrame.begin(ADD, seq, 1, a, null, null, 2, 0);
        try {
            Tensor out = compute(ADD, a, null, new double[] {value, 1});
            if (grad) {
                Autograd.record(out, seq, "AddBackward1", g -> new Tensor[] {g}, a);
            }
            return out;
        } finally {
            CallFrame.close(f);
        }
    }

    static Tensor sub(Tensor a, Tensor b) {
        Objects.requireNonNull(b, "other");
        boolean grad = Autograd.needs(a, b);
        long seq = grad ? Autograd.nextSequenceNumber() : -1;
        CallFrame f = CallFrame.begin(SUB, seq, 2, a, b, null, 1, 0);
        try {
            Tensor out = compute(SUB, a, b, new double[] {0, 1});
            if (grad) {
                int[] sa = a.sizes;
                int[] sb = b.sizes;
                Autograd.record(out, seq, "SubBackward0", g -> new Tensor[] {sumTo(g, sa), sumTo(g.neg(), sb)}, a,
                        b);
            }
            return out;
        } finally {
            CallFrame.close(f);
        }
    }

    static Tensor mul(Tensor a, Tensor b) {
        Objects.requireNonNull(b, "other");
        boolean grad = Autograd.needs(a, b);
        long seq = grad ? Autograd.nextSequenceNumber() : -1;
        CallFrame f = CallFrame.begin(MUL, seq, 2, a, b, null, 0, 0);
        try {
            Tensor out = compute(MUL, a, b, new double[] {0});
            if (grad) {
                Autograd.Saved sa = b.requiresGrad ? new Autograd.Saved(a) : null;
                Autograd.Saved sb = a.requiresGrad ? new Autograd.Saved(b) : null;
                int[] shapeA = a.sizes;
                int[] shapeB = b.sizes;
                Autograd.record(out, seq, "MulBackward0", g -> new Tensor[] {
                    sb == null ? null : sumTo(g.mul(sb.get("MulBackward0")), shapeA),
                    sa == null ? null : sumTo(g.mul(sa.get("MulBackward0")), shapeB)}, a, b);
            }
            return out;
        } finally {
            CallFrame.close(f);
        }
    }

    static Tensor mulScalar(Tensor a, double value) {
        boolean grad = Autograd.needs(a);
        long seq = grad ? Autograd.nextSequenceNumber() : -1;
        CallFrame f = CallFrame.begin(MUL, seq, 1, a, null, null, 1, 0);
        try {
            Tensor out = compute(MUL, a, null, new double[] {value});
            if (grad) {
                Autograd.record(out, seq, "MulBackward1", g -> new Tensor[] {g.mul(value)}, a);
            }
            return out;
        } finally {
            CallFrame.close(f);
        }
    }

    static Tensor div(Tensor a, Tensor b) {
        Objects.requireNonNull(b, "other");
        boolean grad = Autograd.needs(a, b);
        long seq = grad ? Autograd.nextSequenceNumber() : -1;
        CallFrame f = CallFrame.begin(DIV, seq, 2, a, b, null, 0, 0);
        try {
            Tensor out = compute(DIV, a, b, new double[] {0});
            if (grad) {
                Autograd.Saved sa = b.requiresGrad ? new Autograd.Saved(a) : null;
                Autograd.Saved sb = new Autograd.Saved(b);
                int[] shapeA = a.sizes;
                int[] shapeB = b.sizes;
                boolean needA = a.requiresGrad;
                Autograd.record(out, seq, "DivBackward0", g -> {
                    Tensor y = sb.get("DivBackward0");
                    return new Tensor[] {needA ? sumTo(g.div(y), shapeA) : null,
                        sa == null ? null : sumTo(g.neg().mul(sa.get("DivBackward0")).div(y.mul(y)), shapeB)};
                }, a, b);
            }
            return out;
        } finally {
            CallFrame.close(f);
        }
    }

    static Tensor pow(Tensor a, double exponent) {
        boolean grad = Autograd.needs(a);
        long seq = grad ? Autograd.nextSequenceNumber() : -1;
        CallFrame f = CallFrame.begin(POW, seq, 1, a, null, null, 1, 0);
        try {
            Tensor out = compute(POW, a, null, new double[] {exponent});
            if (grad) {
                Autograd.Saved x = new Autograd.Saved(a);
                Autograd.record(out, seq, "PowBackward0", g -> new Tensor[] {exponent == 2
                    ? g.mul(x.get("PowBackward0").mul(2.0))
                    : g.mul(x.get("PowBackward0").pow(exponent - 1).mul(exponent))}, a);
            }
            return out;
        } finally {
            CallFrame.close(f);
        }
    }

    /** One-input ops whose gradient needs the input or the result. */
    static Tensor unary(OpDef op, Tensor a) {
        boolean grad = Autograd.needs(a);
        long seq = grad ? Autograd.nextSequenceNumber() : -1;
        CallFrame f = CallFrame.begin(op, seq, 1, a, null, null, 0, 0);
        try {
            Tensor out = compute(op, a, null, null);
            if (grad) {
                // saved as torch saves them: the input where the gradient needs it, else the result
                boolean needsInput = op == LOG || op == GELU;
                Autograd.Saved x = needsInput ? new Autograd.Saved(a) : null;
                Autograd.Saved y = !needsInput && op != NEG ? new Autograd.Saved(out) : null;
                String node = backwardName(op);
                Node.Backward backward;
                if (op == NEG) {
                    backward = g -> new Tensor[] {g.neg()};
                } else if (op == EXP) {
                    backward = g -> new Tensor[] {g.mul(y.get(node))};
                } else if (op == LOG) {
                    backward = g -> new Tensor[] {g.div(x.get(node))};
                } else if (op == SQRT) {
                    backward = g -> new Tensor[] {g.div(y.get(node).mul(2.0))};
                } else if (op == RELU) {
                    backward = g -> new Tensor[] {gradKernel(THRESHOLD_BACKWARD, g, y.get(node), 0)};
                } else if (op == GELU) {
                    backward = g -> new Tensor[] {gradKernel(GELU_BACKWARD, g, x.get(node), 0)};
                } else if (op == TANH) {
                    backward = g -> new Tensor[] {gradKernel(TANH_BACKWARD, g, y.get(node), 0)};
                } else if (op == SIGMOID) {
                    backward = g -> new Tensor[] {gradKernel(SIGMOID_BACKWARD, g, y.get(node), 0)};
                } else {
                    throw new IllegalArgumentException(op + " is not a unary op");
                }
                Autograd.record(out, seq, node, backward, a);
            }
            return out;
        } finally {
            CallFrame.close(f);
        }
    }

    private static String backwardName(OpDef op) {
        String n = op.name().substring("aten::".length());
        return Character.toUpperCase(n.charAt(0)) + n.substring(1) + "Backward0";
    }

    /** The gradient kernels of activations: {@code (grad, saved)} to the input's gradient. */
    static Tensor gradKernel(OpDef op, Tensor grad, Tensor saved, double threshold) {
        Exec.device(op.name(), grad, saved);
        if (!Arrays.equals(grad.sizes, saved.sizes)) {
            throw new IllegalArgumentException(op + ": shapes " + Exec.describe(grad, saved) + " differ");
        }
        return Exec.gradient(op, grad.sizes, 2, new Tensor[] {grad, saved},
                op == THRESHOLD_BACKWARD ? new double[] {threshold} : null, null);
    }

    /** {@code self = self op (other or value)}, with {@code alpha} for add; other broadcasts to self's shape. */
    static Tensor inPlace(OpDef op, Tensor self, Tensor other, double value, double alpha) {
        Autograd.checkInPlace(op.name(), self);
        Exec.requireWritable(op.name(), self);
        CallFrame f = CallFrame.begin(op, -1, other == null ? 1 : 2, self, other, null, other == null ? 1 : 0, 0);
        try {
            Device device = Exec.device(op.name(), self, other);
            Exec.requireFloat(op.name(), self);
            Exec.requireFloat(op.name(), other);
            if (other != null && !Arrays.equals(Shapes.broadcast(op.name(), self, other), self.sizes)) {
                throw new IllegalArgumentException(op + ": the result of " + Exec.describe(self, other)
                        + " does not fit in the first tensor's shape");
            }
            double[] scalars = op == ADD_ ? new double[] {value, alpha} : new double[] {value};
            Exec.run(op, device, new Tensor[] {self, other}, new Tensor[] {self}, scalars, null);
            self.storage.bumpVersion();
            return self;
        } finally {
            CallFrame.close(f);
        }
    }

    /** {@code self += value * t1 (* or /) t2}, as optimizers use. */
    static Tensor ternaryInPlace(OpDef op, Tensor self, Tensor t1, Tensor t2, double value) {
        Autograd.checkInPlace(op.name(), self);
        Exec.requireWritable(op.name(), self);
        CallFrame f = CallFrame.begin(op, -1, 3, self, t1, t2, 1, 0);
        try {
            Device device = Exec.device(op.name(), self, t1, t2);
            for (Tensor t : new Tensor[] {self, t1, t2}) {
                Exec.requireFloat(op.name(), t);
                if (!Arrays.equals(Shapes.broadcast(op.name(), self, t), self.sizes)) {
                    throw new IllegalArgumentException(op + ": " + Exec.describe(t) + " does not broadcast to "
                            + Exec.describe(self));
                }
            }
            Exec.run(op, device, new Tensor[] {self, t1, t2}, new Tensor[] {self}, new double[] {value}, null);
            self.storage.bumpVersion();
            return self;
        } finally {
            CallFrame.close(f);
        }
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
}
