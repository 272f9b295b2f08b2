package dev.vantage.tensor;

import java.util.Arrays;
import java.util.Objects;

import dev.vantage.tensor.spi.KernelOps;

/**
 * The functional forms of the neural-network ops, like {@code torch.nn.functional}: each is dispatched and
 * recorded for autograd like any tensor op, under torch's op names ({@code aten::linear},
 * {@code aten::cross_entropy_loss}, ...), so profiles read the same.
 */
public final class Functional {

    /** {@code layer_norm}: its kernel op inside, as torch shows it. */
    static final Op LAYER_NORM = new Op(Op.composite("aten::layer_norm").shows(3, 1, 1)) {
        @Override
        Tensor forward(OpThread t, Device device, Tensor[] in, double[] scalars, long[][] ints) {
            return NATIVE_LAYER_NORM.call(in, scalars, ints, null);
        }
    };

    /**
     * {@code (x, weight, bias)}, either of the last two null, normalised over the last dimensions {@code ints[0]} with
     * {@code eps}: the result, and the mean and reciprocal deviation its backward needs.
     */
    static final Op NATIVE_LAYER_NORM = new Op(Op.kernel(KernelOps.NATIVE_LAYER_NORM).shows(3, 1, 1).outputs(3)
            .backward("NativeLayerNormBackward0")) {
        @Override
        int[] shape(Tensor[] in, double[] scalars, long[][] ints) {
            Tensor x = in[0];
            requireFloat(x);
            long[] normalizedShape = ints[0];
            int k = normalizedShape.length;
            int[] normalized = Shapes.checked(normalizedShape);
            boolean fits = k >= 1 && k <= x.dim();
            for (int i = 0; fits && i < k; i++) {
                fits = x.sizes[x.dim() - k + i] == normalized[i];
            }
            for (Tensor t : new Tensor[] {in[1], in[2]}) {
                fits &= t == null || Arrays.equals(t.sizes, normalized);
            }
            if (!fits) {
                throw new IllegalArgumentException(name + ": normalized shape " + Arrays.toString(normalizedShape)
                        + " does not fit " + describe(in));
            }
            return x.sizes;
        }

        @Override
        int[] shape(int k, Tensor[] in, double[] scalars, long[][] ints) {
            Tensor x = in[0];
            int[] statShape = x.sizes.clone();
            for (int i = x.dim() - ints[0].length; i < x.dim(); i++) {
                statShape[i] = 1;
            }
            return statShape;
        }

        @Override
        int saves(Tensor[] in) {
            return 1 | (in[1] != null ? 2 : 0) | OUT0 << 1 | OUT0 << 2;
        }

        @Override
        Tensor[] backward(Node n, Tensor g) {
            Tensor input = n.input(0);
            Tensor w = n.size(1) == null ? null : n.input(1);
            Tensor[] grads = NATIVE_LAYER_NORM_BACKWARD.callAll(new Tensor[] {g, input, n.output(1), n.output(2), w},
                    null, new long[][] {n.ints(0)});
            return grads(grads[0], grads[1], n.size(2) == null ? null : grads[2]);
        }
    };

    /**
     * {@code (grad, x, mean, rstd, weight or null)} to the gradients of input, weight and bias (the last two null
     * without a weight); hooks see the gradient, the input and the weight, as torch shows them.
     */
    static final Op NATIVE_LAYER_NORM_BACKWARD = new Op(Op.kernel(KernelOps.NATIVE_LAYER_NORM_BACKWARD)
            .shows(3, 0, 1).showsInputs(0, 1, 4).results(3)) {
        @Override
        int[] shape(Tensor[] in, double[] scalars, long[][] ints) {
            return in[1].sizes;
        }

        @Override
        int[] shape(int k, Tensor[] in, double[] scalars, long[][] ints) {
            return in[4] == null ? null : in[4].sizes;
        }
    };

    /**
     * Rows of {@code weight} picked by int64 {@code indices}: {@code index_select} under no gradient, with a backward
     * of its own ({@code embedding_dense_backward}) into the weight.
     */
    static final Op EMBEDDING = new Op(Op.composite("aten::embedding").shows(2, 0, 0)
            .backward("EmbeddingBackward0")) {
        @Override
        Tensor forward(OpThread t, Device device, Tensor[] in, double[] scalars, long[][] ints) {
            Tensor weight = in[0];
            Tensor indices = in[1];
            if (weight.dim() != 2 || indices.dtype() != DType.INT64) {
                throw new IllegalArgumentException(name + ": expected a 2-d weight and long indices, got "
                        + describe(weight, indices));
            }
            try (GradMode.Scope off = GradMode.disabled()) {
                long[] shape = Arrays.copyOf(indices.shape(), indices.dim() + 1);
                shape[indices.dim()] = weight.sizes[1];
                Tensor flat = indices.reshape(-1);
                Tensor rows = Views.indexSelect(weight, 0, flat);
                Tensor out = rows.view(shape);
                Op.closeTemporary(flat, indices);
                rows.close();
                return out;
            }
        }

        @Override
        int saves(Tensor[] in) {
            return 2;
        }

        @Override
        Tensor[] backward(Node n, Tensor g) {
            return grads(EMBEDDING_BACKWARD.call(new Tensor[] {g, n.input(1)}, null,
                    new long[][] {Shapes.toLongs(n.size(0))}, null));
        }
    };

    /** {@code (grad, indices)} into a zero weight of shape {@code ints[0]}, row by row. */
    static final Op EMBEDDING_BACKWARD = new Op(Op.composite("aten::embedding_dense_backward").shows(2, 0, 1)) {
        @Override
        Tensor forward(OpThread t, Device device, Tensor[] in, double[] scalars, long[][] ints) {
            int[] full = Shapes.checked(ints[0]);
            Tensor rows = in[0].reshape(-1, full[1]);
            return Views.indexAdd(Creation.zeros(device, DType.FLOAT32, full), 0, in[1].reshape(-1), rows);
        }
    };

    /** {@code nll_loss}: its kernel op inside, as torch shows it. */
    static final Op NLL_LOSS = new Op(Op.composite("aten::nll_loss").shows(2, 0, 2)) {
        @Override
        Tensor forward(OpThread t, Device device, Tensor[] in, double[] scalars, long[][] ints) {
            return NLL_LOSS_FORWARD.call(in, null, ints, null);
        }
    };

    /**
     * {@code (log-probabilities [N, C], int64 targets [N])} with {@code {{reduction}, {ignore index}}}: the mean loss,
     * and the total weight its backward needs.
     */
    static final Op NLL_LOSS_FORWARD = new Op(Op.kernel(KernelOps.NLL_LOSS_FORWARD).shows(2, 0, 2).outputs(2)
            .backward("NllLossBackward0")) {
        @Override
        int[] shape(Tensor[] in, double[] scalars, long[][] ints) {
            Tensor logProbs = in[0];
            Tensor target = in[1];
            requireFloat(logProbs);
            if (logProbs.dim() != 2 || target.dim() != 1 || target.dtype() != DType.INT64
                    || target.sizes[0] != logProbs.sizes[0]) {
                throw new IllegalArgumentException(name + ": expected input [N, C] and long target [N], got "
                        + describe(logProbs, target));
            }
            return SCALAR;
        }

        @Override
        int[] shape(int k, Tensor[] in, double[] scalars, long[][] ints) {
            return SCALAR;
        }

        @Override
        int saves(Tensor[] in) {
            return 1 | 2 | OUT0 << 1;
        }

        @Override
        Tensor[] backward(Node n, Tensor g) {
            return grads(NLL_LOSS_BACKWARD.call(new Tensor[] {g, n.input(0), n.input(1), n.output(1)}, null,
                    new long[][] {n.ints(0), n.ints(1)}, null));
        }
    };

    /** {@code (grad, log-probabilities, targets, total weight)} to the log-probabilities' gradient. */
    static final Op NLL_LOSS_BACKWARD = new Op(Op.kernel(KernelOps.NLL_LOSS_BACKWARD).shows(3, 0, 2)) {
        @Override
        int[] shape(Tensor[] in, double[] scalars, long[][] ints) {
            return in[1].sizes;
        }
    };

    static final Op CROSS_ENTROPY = new Op(Op.composite("aten::cross_entropy_loss").shows(2, 0, 2)) {
        @Override
        Tensor forward(OpThread t, Device device, Tensor[] in, double[] scalars, long[][] ints) {
            Tensor logProbs = in[0].logSoftmax(1);
            try {
                return NLL_LOSS.call(new Tensor[] {logProbs, in[1]}, null, ints, null);
            } finally {
                logProbs.close();   // nll_loss saved what its backward needs
            }
        }
    };

    static final Op MSE_LOSS = new Op(Op.composite("aten::mse_loss").shows(2, 0, 1)) {
        @Override
        Tensor forward(OpThread t, Device device, Tensor[] in, double[] scalars, long[][] ints) {
            Tensor x = in[0];
            Tensor target = in[1];
            if (!Arrays.equals(x.sizes, target.sizes)) {
                throw new IllegalArgumentException(name + ": shapes " + describe(x, target) + " differ");
            }
            Tensor diff = x.sub(target);
            Tensor squares = null;
            try {
                squares = diff.mul(diff);
                return squares.mean();
            } finally {
                diff.close();
                Op.closeTemporary(squares);
            }
        }
    };

    /** {@code dropout}, with {@code (p, training)}: the input itself when not training, else its kernel op inside. */
    static final Op DROPOUT = new Op(Op.composite("aten::dropout").shows(1, 2, 0)) {
        @Override
        Tensor forward(OpThread t, Device device, Tensor[] in, double[] scalars, long[][] ints) {
            if (scalars[1] == 0 || scalars[0] == 0) {
                return in[0];
            }
            return NATIVE_DROPOUT.call(in, new double[] {scalars[0], scalars[2]}, null, null);
        }
    };

    /** {@code x} with {@code (p, seed)}: the kept elements scaled by {@code 1 / (1 - p)}, and the mask of them. */
    static final Op NATIVE_DROPOUT = new Op(Op.kernel(KernelOps.NATIVE_DROPOUT).shows(1, 2, 0).outputs(2)
            .backward("NativeDropoutBackward0")) {
        @Override
        int[] shape(Tensor[] in, double[] scalars, long[][] ints) {
            requireFloat(in[0]);
            return in[0].sizes;
        }

        @Override
        int[] shape(int k, Tensor[] in, double[] scalars, long[][] ints) {
            return in[0].sizes;
        }

        @Override
        DType dtype(int k, Tensor[] in) {
            return DType.BOOL;
        }

        @Override
        int saves(Tensor[] in) {
            return OUT0 << 1;
        }

        @Override
        Tensor[] backward(Node n, Tensor g) {
            return grads(NATIVE_DROPOUT_BACKWARD.call(new Tensor[] {g, n.output(1)},
                    new double[] {1 / (1 - n.scalar(0))}, null, null));
        }
    };

    /** {@code (grad, mask)} with {@code (scale)} to the input's gradient. */
    static final Op NATIVE_DROPOUT_BACKWARD = new Op(Op.kernel(KernelOps.NATIVE_DROPOUT_BACKWARD).shows(2, 1, 0)) { };

    private static final int[] SCALAR = {};

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
        return LAYER_NORM.call(new Tensor[] {Objects.requireNonNull(x, "x"), weight, bias}, new double[] {eps},
                new long[][] {normalizedShape.clone()}, null);
    }

    /** Rows of {@code weight} picked by int64 {@code indices} of any shape; the result is indices' shape + [D]. */
    public static Tensor embedding(Tensor weight, Tensor indices) {
        return EMBEDDING.call(new Tensor[] {weight, indices}, null, null, null);
    }

    /** The mean negative log-likelihood of int64 class targets {@code [N]} under log-probabilities {@code [N, C]}. */
    public static Tensor nllLoss(Tensor logProbs, Tensor target) {
        return NLL_LOSS.call(new Tensor[] {logProbs, target}, null, new long[][] {{1}, {-100}}, null);
    }

    /** Mean cross entropy of logits {@code [N, C]} against int64 class targets {@code [N]}. */
    public static Tensor crossEntropy(Tensor logits, Tensor target) {
        return CROSS_ENTROPY.call(new Tensor[] {logits, target}, null, new long[][] {{1}, {-100}}, null);
    }

    /** Mean squared error. */
    public static Tensor mseLoss(Tensor x, Tensor target) {
        return MSE_LOSS.call(new Tensor[] {x, target}, null, new long[][] {{1}}, null);
    }

    /**
     * Zeroes each element with probability {@code p} and scales the rest by {@code 1 / (1 - p)}; returns the input
     * when not training. The mask comes from {@code seed}, so a run is reproducible.
     */
    public static Tensor dropout(Tensor x, double p, boolean training, long seed) {
        if (p < 0 || p >= 1) {
            throw new IllegalArgumentException("aten::dropout: p must be in [0, 1), not " + p);
        }
        return DROPOUT.call(new Tensor[] {x}, new double[] {p, training ? 1 : 0, seed & ((1L << 52) - 1)}, null, null);
    }
}
