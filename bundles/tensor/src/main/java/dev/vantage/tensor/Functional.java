package dev.vantage.tensor;

import java.util.Arrays;
import java.util.Objects;

import dev.vantage.tensor.internal.CallFrame;
import dev.vantage.tensor.internal.OpDef;
import dev.vantage.tensor.internal.Ops;
import dev.vantage.tensor.spi.KernelOps;

/**
 * The functional forms of the neural-network ops, like {@code torch.nn.functional}: each is dispatched and
 * recorded for autograd like any tensor op, under torch's op names ({@code aten::linear},
 * {@code aten::cross_entropy_loss}, ...), so profiles read the same.
 */
public final class Functional {

    static final OpDef LAYER_NORM = Ops.composite("aten::layer_norm");
    static final OpDef NATIVE_LAYER_NORM = Ops.kernel(KernelOps.NATIVE_LAYER_NORM);
    static final OpDef NATIVE_LAYER_NORM_BACKWARD = Ops.kernel(KernelOps.NATIVE_LAYER_NORM_BACKWARD);
    static final OpDef EMBEDDING = Ops.composite("aten::embedding");
    static final OpDef EMBEDDING_BACKWARD = Ops.composite("aten::embedding_dense_backward");
    static final OpDef CROSS_ENTROPY = Ops.composite("aten::cross_entropy_loss");
    static final OpDef NLL_LOSS = Ops.composite("aten::nll_loss");
    static final OpDef NLL_LOSS_FORWARD = Ops.kernel(KernelOps.NLL_LOSS_FORWARD);
    static final OpDef NLL_LOSS_BACKWARD = Ops.kernel(KernelOps.NLL_LOSS_BACKWARD);
    static final OpDef MSE_LOSS = Ops.composite("aten::mse_loss");
    static final OpDef DROPOUT = Ops.composite("aten::dropout");
    static final OpDef NATIVE_DROPOUT = Ops.kernel(KernelOps.NATIVE_DROPOUT);
    static final OpDef NATIVE_DROPOUT_BACKWARD = Ops.kernel(KernelOps.NATIVE_DROPOUT_BACKWARD);

    private Functional() {
    }

    /** {@code x @ weight.T + bias}; bias may be null. */
    public static Tensor linear(Tensor x, Tensor weight, Tensor bias) {
        return Linalg.linear(Objects.requireNonNull(x, "x"), Objects.requireNonNull(weight, "weight"), bias);
    }

    /** 2-d convolution of {@code [N, C, H, W]} with {@code [O, C, kh, kw]}; bias may be null. */
    public static Tensor conv2d(Tensor x, Tensor weight, Tensor bias, int stride, int padding) {
        return Linalg.conv2d(Objects.requireNonNull(x, "x"), Objects.requireNonNull(weight, "weight"), bias,
                new int[] {stride, stride}, new int[] {padding, padding}, new int[] {1, 1});
    }

    /** 2-d max pooling with a square kernel; the stride defaults to the kernel size in torch, so pass it. */
    public static Tensor maxPool2d(Tensor x, int kernel, int stride, int padding) {
        return Linalg.maxPool2d(Objects.requireNonNull(x, "x"), new int[] {kernel, kernel},
                new int[] {stride, stride}, new int[] {padding, padding});
    }

    /** Layer normalisation over the last {@code normalizedShape.length} dimensions; weight and bias may be null. */
    public static Tensor layerNorm(Tensor x, long[] normalizedShape, Tensor weight, Tensor bias, double eps) {
        CallFrame outer = CallFrame.begin(LAYER_NORM, -1, 3, x, weight, bias, 1, 1);
        try {
            String op = NATIVE_LAYER_NORM.name();
            Device device = Exec.device(op, x, weight, bias);
            Exec.requireFloat(op, x);
            int k = normalizedShape.length;
            int[] normalized = Shapes.checked(normalizedShape);
            boolean fits = k >= 1 && k <= x.dim();
            for (int i = 0; fits && i < k; i++) {
                fits = x.sizes[x.dim() - k + i] == normalized[i];
            }
            for (Tensor t : new Tensor[] {weight, bias}) {
                fits &= t == null || Arrays.equals(t.sizes, normalized);
            }
            if (!fits) {
                throw new IllegalArgumentException(op + ": normalized shape " + Arrays.toString(normalizedShape)
                        + " does not fit " + Exec.describe(x, weight, bias));
            }
            boolean grad = Autograd.needs(x, weight, bias);
            long seq = grad ? Autograd.nextSequenceNumber() : -1;
            CallFrame f = CallFrame.begin(NATIVE_LAYER_NORM, seq, 3, x, weight, bias, 1, 1);
            try {
                int[] statShape = x.sizes.clone();
                for (int i = x.dim() - k; i < x.dim(); i++) {
                    statShape[i] = 1;
                }
                Tensor out = Exec.empty(device, DType.FLOAT32, x.sizes);
                Tensor mean = Exec.empty(device, DType.FLOAT32, statShape);
                Tensor rstd = Exec.empty(device, DType.FLOAT32, statShape);
                long[] norm = normalizedShape.clone();
                Exec.run(NATIVE_LAYER_NORM, device, new Tensor[] {x, weight, bias}, new Tensor[] {out, mean, rstd},
                        new double[] {eps}, new long[][] {norm});
                if (grad) {
                    Autograd.Saved sx = new Autograd.Saved(x);
                    Autograd.Saved sw = weight == null ? null : new Autograd.Saved(weight);
                    Autograd.Saved sm = new Autograd.Saved(mean);
                    Autograd.Saved sr = new Autograd.Saved(rstd);
                    String node = "NativeLayerNormBackward0";
                    Autograd.record(out, seq, node, g -> {
                        Tensor input = sx.get(node);
                        Tensor w = sw == null ? null : sw.get(node);
                        CallFrame b = CallFrame.begin(NATIVE_LAYER_NORM_BACKWARD, -1, 3, g, input, w, 0, 1);
                        try {
                            Tensor gx = Exec.empty(g.device(), DType.FLOAT32, input.sizes);
                            Tensor gw = w == null ? null : Exec.empty(g.device(), DType.FLOAT32, w.sizes);
                            Tensor gb = w == null ? null : Exec.empty(g.device(), DType.FLOAT32, w.sizes);
                            Exec.run(NATIVE_LAYER_NORM_BACKWARD, g.device(),
                                    new Tensor[] {g, input, sm.get(node), sr.get(node), w},
                                    new Tensor[] {gx, gw, gb}, null, new long[][] {norm});
                            return new Tensor[] {gx, gw, bias == null ? null : gb};
                        } finally {
                            CallFrame.close(b);
                        }
                    }, x, weight, bias);
                }
                // the statistics are the op's own: only the backward pass, through what it saved, needs them
                mean.close();
                rstd.close();
                return out;
            } finally {
                CallFrame.close(f);
            }
        } finally {
            CallFrame.close(outer);
        }
    }

    /** Rows of {@code weight} picked by int64 {@code indices} of any shape; the result is indices' shape + [D]. */
    public static Tensor embedding(Tensor weight, Tensor indices) {
        boolean grad = Autograd.needs(weight);
        long seq = grad ? Autograd.nextSequenceNumber() : -1;
        CallFrame f = CallFrame.begin(EMBEDDING, seq, 2, weight, indices, null, 0, 0);
        try {
            if (weight.dim() != 2 || indices.dtype() != DType.INT64) {
                throw new IllegalArgumentException("aten::embedding: expected a 2-d weight and long indices, got "
                        + Exec.describe(weight, indices));
            }
            Tensor out;
            try (GradMode.Scope off = GradMode.disabled()) {
                long[] shape = Arrays.copyOf(indices.shape(), indices.dim() + 1);
                shape[indices.dim()] = weight.sizes[1];
                Tensor flat = indices.reshape(-1);
                Tensor rows = Views.indexSelect(weight, 0, flat);
                out = rows.view(shape);
                Exec.closeTemporary(flat, indices);
                rows.close();
            }
            if (grad) {
                int[] full = weight.sizes;
                Autograd.Saved si = new Autograd.Saved(indices);
                String node = "EmbeddingBackward0";
                Autograd.record(out, seq, node, g -> {
                    Tensor saved = si.get(node);
                    CallFrame b = CallFrame.begin(EMBEDDING_BACKWARD, -1, 2, g, saved, null, 0, 1);
                    try {
                        Tensor rows = g.reshape(-1, full[1]);
                        return new Tensor[] {Views.indexAdd(Creation.zeros(g.device(), DType.FLOAT32, full), 0,
                                saved.reshape(-1), rows)};
                    } finally {
                        CallFrame.close(b);
                    }
                }, weight);
            }
            return out;
        } finally {
            CallFrame.close(f);
        }
    }

    /** The mean negative log-likelihood of int64 class targets {@code [N]} under log-probabilities {@code [N, C]}. */
    public static Tensor nllLoss(Tensor logProbs, Tensor target) {
        CallFrame outer = CallFrame.begin(NLL_LOSS, -1, 2, logProbs, target, null, 0, 2);
        try {
            String op = NLL_LOSS_FORWARD.name();
            Device device = Exec.device(op, logProbs, target);
            Exec.requireFloat(op, logProbs);
            if (logProbs.dim() != 2 || target.dim() != 1 || target.dtype() != DType.INT64
                    || target.sizes[0] != logProbs.sizes[0]) {
                throw new IllegalArgumentException(op + ": expected input [N, C] and long target [N], got "
                        + Exec.describe(logProbs, target));
            }
            boolean grad = Autograd.needs(logProbs);
            long seq = grad ? Autograd.nextSequenceNumber() : -1;
            CallFrame f = CallFrame.begin(NLL_LOSS_FORWARD, seq, 2, logProbs, target, null, 0, 2);
            try {
                long[][] ints = {{1}, {-100}};
                Tensor out = Exec.empty(device, DType.FLOAT32, new int[0]);
                Tensor totalWeight = Exec.empty(device, DType.FLOAT32, new int[0]);
                Exec.run(NLL_LOSS_FORWARD, device, new Tensor[] {logProbs, target}, new Tensor[] {out, totalWeight},
                        null, ints);
                if (grad) {
                    Autograd.Saved sx = new Autograd.Saved(logProbs);
                    Autograd.Saved st = new Autograd.Saved(target);
                    Autograd.Saved sw = new Autograd.Saved(totalWeight);
                    String node = "NllLossBackward0";
                    Autograd.record(out, seq, node, g -> {
                        Tensor x = sx.get(node);
                        return new Tensor[] {Exec.gradient(NLL_LOSS_BACKWARD, x.sizes, 3,
                                new Tensor[] {g, x, st.get(node), sw.get(node)}, null, ints)};
                    }, logProbs);
                }
                totalWeight.close();   // the op's own: only the backward pass, through what it saved, needs it
                return out;
            } finally {
                CallFrame.close(f);
            }
        } finally {
            CallFrame.close(outer);
        }
    }

    /** Mean cross entropy of logits {@code [N, C]} against int64 class targets {@code [N]}. */
    public static Tensor crossEntropy(Tensor logits, Tensor target) {
        CallFrame f = CallFrame.begin(CROSS_ENTROPY, -1, 2, logits, target, null, 0, 2);
        try {
            Tensor logProbs = logits.logSoftmax(1);
            try {
                return nllLoss(logProbs, target);
            } finally {
                logProbs.close();   // nll_loss saved what its backward needs
            }
        } finally {
            CallFrame.close(f);
        }
    }

    /** Mean squared error. */
    public static Tensor mseLoss(Tensor x, Tensor target) {
        CallFrame f = CallFrame.begin(MSE_LOSS, -1, 2, x, target, null, 0, 1);
        try {
            if (!Arrays.equals(x.sizes, target.sizes)) {
                throw new IllegalArgumentException("aten::mse_loss: shapes " + Exec.describe(x, target) + " differ");
            }
            Tensor diff = x.sub(target);
            Tensor squares = null;
            try {
                squares = diff.mul(diff);
                return squares.mean();
            } finally {
                diff.close();
                Exec.closeTemporary(squares);
            }
        } finally {
            CallFrame.close(f);
        }
    }

    /**
     * Zeroes each element with probability {@code p} and scales the rest by {@code 1 / (1 - p)}; returns the input
     * when not training. The mask comes from {@code seed}, so a run is reproducible.
     */
    public static Tensor dropout(Tensor x, double p, boolean training, long seed) {
        if (p < 0 || p >= 1) {
            throw new IllegalArgumentException("aten::dropout: p must be in [0, 1), not " + p);
        }
        CallFrame outer = CallFrame.begin(DROPOUT, -1, 1, x, null, null, 2, 0);
        try {
            if (!training || p == 0) {
                return x;
            }
            Exec.requireFloat(NATIVE_DROPOUT.name(), x);
            boolean grad = Autograd.needs(x);
            long seq = grad ? Autograd.nextSequenceNumber() : -1;
            CallFrame f = CallFrame.begin(NATIVE_DROPOUT, seq, 1, x, null, null, 2, 0);
            try {
                Tensor out = Exec.empty(x.device(), DType.FLOAT32, x.sizes);
                Tensor mask = Exec.empty(x.device(), DType.BOOL, x.sizes);
                Exec.run(NATIVE_DROPOUT, x.device(), new Tensor[] {x}, new Tensor[] {out, mask},
                        new double[] {p, seed & ((1L << 52) - 1)}, null);
                if (grad) {
                    double scale = 1 / (1 - p);
                    Autograd.Saved sm = new Autograd.Saved(mask);
                    String node = "NativeDropoutBackward0";
                    Autograd.record(out, seq, node, g -> new Tensor[] {Exec.gradient(NATIVE_DROPOUT_BACKWARD,
                            g.sizes, 2, new Tensor[] {g, sm.get(node)}, new double[] {scale}, null)}, x);
                }
                mask.close();   // the op's own: only the backward pass, through what it saved, needs it
                return out;
            } finally {
                CallFrame.close(f);
            }
        } finally {
            CallFrame.close(outer);
        }
    }
}
