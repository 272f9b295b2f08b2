package dev.vantage.tensor;

import java.util.Arrays;

import dev.vantage.tensor.spi.KernelOps;

/** Matrix products, linear layers, 2-d convolution and max pooling, with their gradients. */
final class Linalg {

    /** A product of two float tensors, whose gradients need the other input. */
    private abstract static class Product extends Op {
        Product(Spec spec) {
            super(spec);
        }

        @Override
        int saves(Tensor[] in) {
            int a = in.length - 2;
            return (in[a + 1].requiresGrad ? 1 << a : 0) | (in[a].requiresGrad ? 1 << (a + 1) : 0);
        }
    }

    static final Op MM = new Product(Op.kernel(KernelOps.MM).shows(2, 0, 0).backward("MmBackward0")) {
        @Override
        int[] shape(Tensor[] in, double[] scalars, long[][] ints) {
            Tensor a = in[0];
            Tensor b = in[1];
            requireFloat(a, b);
            if (a.dim() != 2 || b.dim() != 2 || a.sizes[1] != b.sizes[0]) {
                throw cannotMultiply(name, a, b);
            }
            return new int[] {a.sizes[0], b.sizes[1]};
        }

        @Override
        Tensor[] backward(Node n, Tensor g) {
            return grads(n.needs(0) ? mm(g, n.input(1).t()) : null, n.needs(1) ? mm(n.input(0).t(), g) : null);
        }
    };

    static final Op BMM = new Product(Op.kernel(KernelOps.BMM).shows(2, 0, 0).backward("BmmBackward0")) {
        @Override
        int[] shape(Tensor[] in, double[] scalars, long[][] ints) {
            Tensor a = in[0];
            Tensor b = in[1];
            requireFloat(a, b);
            if (a.dim() != 3 || b.dim() != 3 || a.sizes[0] != b.sizes[0] || a.sizes[2] != b.sizes[1]) {
                throw cannotMultiply(name, a, b);
            }
            return new int[] {a.sizes[0], a.sizes[1], b.sizes[2]};
        }

        @Override
        Tensor[] backward(Node n, Tensor g) {
            return grads(n.needs(0) ? bmm(g, n.input(1).transpose(1, 2)) : null,
                    n.needs(1) ? bmm(n.input(0).transpose(1, 2), g) : null);
        }
    };

    /** {@code bias + a @ b}: {@code (bias, a, b)} with the scalars {@code (beta, alpha)}. */
    static final Op ADDMM = new Product(Op.kernel(KernelOps.ADDMM).shows(3, 2, 0).backward("AddmmBackward0")) {
        @Override
        int[] shape(Tensor[] in, double[] scalars, long[][] ints) {
            Tensor bias = in[0];
            Tensor a = in[1];
            Tensor b = in[2];
            requireFloat(bias, a, b);
            if (a.dim() != 2 || b.dim() != 2 || a.sizes[1] != b.sizes[0]) {
                throw cannotMultiply(name, a, b);
            }
            int[] shape = {a.sizes[0], b.sizes[1]};
            if (!Arrays.equals(Shapes.broadcast(name, shape, bias.sizes, a.device()), shape)) {
                throw new IllegalArgumentException(name + ": bias " + describe(bias) + " does not broadcast to "
                        + Arrays.toString(shape));
            }
            return shape;
        }

        @Override
        Tensor[] backward(Node n, Tensor g) {
            return grads(n.needs(0) ? Pointwise.sumTo(g, n.size(0)) : null,
                    n.needs(1) ? mm(g, n.input(2).t()) : null, n.needs(2) ? mm(n.input(1).t(), g) : null);
        }
    };

    static final Op MATMUL = new Op(Op.composite("aten::matmul").shows(2, 0, 0)) {
        @Override
        Tensor forward(OpThread t, Device device, Tensor[] in, double[] scalars, long[][] ints) {
            return product(name, in[0], in[1]);
        }
    };

    /** {@code x @ weight.T + bias}, as torch's linear: addmm for 2-d inputs, matmul and add otherwise. */
    static final Op LINEAR = new Op(Op.composite("aten::linear").shows(3, 0, 0)) {
        @Override
        Tensor forward(OpThread t, Device device, Tensor[] in, double[] scalars, long[][] ints) {
            Tensor x = in[0];
            Tensor weight = in[1];
            Tensor bias = in[2];
            if (weight.dim() != 2 || x.dim() == 0 || x.size(-1) != weight.sizes[1]) {
                throw new IllegalArgumentException(name + ": input " + describe(x) + " does not fit weight "
                        + describe(weight));
            }
            Tensor wt = weight.t();
            try {
                if (x.dim() == 2 && bias != null) {
                    return ADDMM.call(new Tensor[] {bias, x, wt}, ONES, null, null);
                }
                Tensor out = matmul(x, wt);
                if (bias == null) {
                    return out;
                }
                try {
                    return out.add(bias);
                } finally {
                    out.close();
                }
            } finally {
                wt.close();   // the transposed view is the op's own
            }
        }
    };

    static final Op CONV2D = new Op(Op.composite("aten::conv2d").shows(3, 0, 3)) {
        @Override
        Tensor forward(OpThread t, Device device, Tensor[] in, double[] scalars, long[][] ints) {
            return CONVOLUTION.call(in, null, ints, null);
        }
    };

    /** {@code (x [N, C, H, W], weight [O, C, kh, kw], bias [O] or null)} with {@code {stride, padding, dilation}}. */
    static final Op CONVOLUTION = new Op(Op.kernel(KernelOps.CONVOLUTION).shows(3, 0, 3)
            .backward("ConvolutionBackward0")) {
        @Override
        int[] shape(Tensor[] in, double[] scalars, long[][] ints) {
            Tensor x = in[0];
            Tensor weight = in[1];
            Tensor bias = in[2];
            requireFloat(x, weight, bias);
            requireRank(x, 4, "an input [N, C, H, W]");
            requireRank(weight, 4, "a weight [O, C, kh, kw]");
            boolean biasFits = bias == null || bias.dim() == 1 && bias.sizes[0] == weight.sizes[0];
            if (x.sizes[1] != weight.sizes[1] || !biasFits) {
                throw new IllegalArgumentException(name + ": input, weight and bias " + describe(x, weight, bias)
                        + " do not fit together");
            }
            long[] stride = ints[0];
            long[] padding = ints[1];
            long[] dilation = ints[2];
            if (stride[0] <= 0 || stride[1] <= 0 || padding[0] < 0 || padding[1] < 0 || dilation[0] <= 0
                    || dilation[1] <= 0) {
                throw new IllegalArgumentException(name + ": stride " + Arrays.toString(stride) + ", padding "
                        + Arrays.toString(padding) + " and dilation " + Arrays.toString(dilation)
                        + " must be positive (padding may be 0)");
            }
            int oh = outSize(x.sizes[2], weight.sizes[2], stride[0], padding[0], dilation[0]);
            int ow = outSize(x.sizes[3], weight.sizes[3], stride[1], padding[1], dilation[1]);
            if (oh <= 0 || ow <= 0) {
                throw new IllegalArgumentException(name + ": the kernel of " + describe(weight) + " does not fit"
                        + " the padded input " + describe(x));
            }
            return new int[] {x.sizes[0], weight.sizes[0], oh, ow};
        }

        @Override
        int saves(Tensor[] in) {
            return 1 | 2;
        }

        @Override
        Tensor[] backward(Node n, Tensor g) {
            long[][] ints = {n.ints(0), n.ints(1), n.ints(2), {n.size(2) != null ? 1 : 0}};
            return CONVOLUTION_BACKWARD.callAll(new Tensor[] {g, n.input(0), n.input(1)}, null, ints);
        }
    };

    /**
     * {@code (grad, x, weight)} with {@code {stride, padding, dilation, {hasBias}}} to the gradients of input,
     * weight and (when there is one) bias.
     */
    static final Op CONVOLUTION_BACKWARD = new Op(Op.kernel(KernelOps.CONVOLUTION_BACKWARD).shows(3, 0, 4)
            .results(3)) {
        @Override
        int[] shape(Tensor[] in, double[] scalars, long[][] ints) {
            return in[1].sizes;
        }

        @Override
        int[] shape(int k, Tensor[] in, double[] scalars, long[][] ints) {
            return k == 1 ? in[2].sizes : ints[3][0] != 0 ? new int[] {in[2].sizes[0]} : null;
        }
    };

    static final Op MAX_POOL2D = new Op(Op.composite("aten::max_pool2d").shows(1, 0, 3)) {
        @Override
        Tensor forward(OpThread t, Device device, Tensor[] in, double[] scalars, long[][] ints) {
            return MAX_POOL2D_WITH_INDICES.call(in, null, ints, null);
        }
    };

    /** {@code x [N, C, H, W]} with {@code {kernel, stride, padding}}: the maxima, and their indices for backward. */
    static final Op MAX_POOL2D_WITH_INDICES = new Op(Op.kernel(KernelOps.MAX_POOL2D_WITH_INDICES).shows(1, 0, 3)
            .outputs(2).backward("MaxPool2DWithIndicesBackward0")) {
        @Override
        int[] shape(Tensor[] in, double[] scalars, long[][] ints) {
            Tensor x = in[0];
            long[] kernel = ints[0];
            long[] stride = ints[1];
            long[] padding = ints[2];
            requireFloat(x);
            requireRank(x, 4, "an input [N, C, H, W]");
            if (kernel[0] <= 0 || kernel[1] <= 0 || stride[0] <= 0 || stride[1] <= 0 || padding[0] < 0
                    || padding[1] < 0) {
                throw new IllegalArgumentException(name + ": kernel " + Arrays.toString(kernel) + " and stride "
                        + Arrays.toString(stride) + " must be positive, padding " + Arrays.toString(padding)
                        + " not negative");
            }
            int oh = outSize(x.sizes[2], kernel[0], stride[0], padding[0], 1);
            int ow = outSize(x.sizes[3], kernel[1], stride[1], padding[1], 1);
            if (oh <= 0 || ow <= 0 || padding[0] * 2 > kernel[0] || padding[1] * 2 > kernel[1]) {
                throw new IllegalArgumentException(name + ": kernel " + Arrays.toString(kernel) + " with padding "
                        + Arrays.toString(padding) + " does not fit " + describe(x));
            }
            return new int[] {x.sizes[0], x.sizes[1], oh, ow};
        }

        @Override
        int[] shape(int k, Tensor[] in, double[] scalars, long[][] ints) {
            return shape(in, scalars, ints);
        }

        @Override
        DType dtype(int k, Tensor[] in) {
            return DType.INT64;
        }

        @Override
        int saves(Tensor[] in) {
            return 1 | OUT0 << 1;
        }

        @Override
        Tensor[] backward(Node n, Tensor g) {
            Tensor input = n.input(0);
            return grads(MAX_POOL2D_BACKWARD.call(new Tensor[] {g, input, n.output(1)}, null,
                    new long[][] {n.ints(0), n.ints(1), n.ints(2)}, null));
        }
    };

    /** {@code (grad, x, indices)} to the input's gradient. */
    static final Op MAX_POOL2D_BACKWARD = new Op(Op.kernel(KernelOps.MAX_POOL2D_WITH_INDICES_BACKWARD)
            .shows(3, 0, 3)) {
        @Override
        int[] shape(Tensor[] in, double[] scalars, long[][] ints) {
            return in[1].sizes;
        }
    };

    private static final double[] ONES = {1, 1};

    private Linalg() {
    }

    static IllegalArgumentException cannotMultiply(String op, Tensor a, Tensor b) {
        return new IllegalArgumentException(op + ": shapes " + Op.describe(a, b) + " cannot be multiplied");
    }

    private static int outSize(int in, long kernel, long stride, long padding, long dilation) {
        return (int) ((in + 2 * padding - dilation * (kernel - 1) - 1) / stride + 1);
    }

    /** torch's {@code matmul}: dot, matrix-vector, matrix and broadcast batched products. */
    private static Tensor product(String op, Tensor a, Tensor b) {
        if (a.dim() == 0 || b.dim() == 0) {
            throw cannotMultiply(op, a, b);
        }
        // the views and copies made on the way are the op's temporaries: closed before it returns
        if (a.dim() == 1 && b.dim() == 1) {
            if (a.sizes[0] != b.sizes[0]) {
                throw cannotMultiply(op, a, b);
            }
            Tensor products = a.mul(b);
            try {
                return products.sum();
            } finally {
                products.close();
            }
        }
        if (a.dim() <= 2 && b.dim() <= 2) {
            Tensor x = a.dim() == 1 ? a.unsqueeze(0) : a;
            Tensor y = b.dim() == 1 ? b.unsqueeze(1) : b;
            Tensor out = null;
            Tensor result = null;
            try {
                out = mm(x, y);
                result = a.dim() == 1 ? out.squeeze(0) : b.dim() == 1 ? out.squeeze(1) : out;
                return result;
            } finally {
                Op.closeTemporary(x, a);
                Op.closeTemporary(y, b);
                Op.closeTemporary(out, result);
            }
        }
        if (b.dim() <= 2) {
            // fold a's batch dimensions into the rows of one mm
            Tensor y = b.dim() == 1 ? b.unsqueeze(1) : b;
            Tensor rows = null;
            Tensor out = null;
            Tensor folded = null;
            Tensor result = null;
            try {
                long[] shape = Shapes.toLongs(a.sizes);
                rows = a.reshape(-1, a.size(-1));
                out = mm(rows, y);
                shape[shape.length - 1] = y.size(1);
                folded = out.view(shape);
                result = b.dim() == 1 ? folded.squeeze(-1) : folded;
                return result;
            } finally {
                Op.closeTemporary(y, b);
                Op.closeTemporary(rows, a);
                Op.closeTemporary(out);
                Op.closeTemporary(folded, result);
            }
        }
        Tensor x = a.dim() == 1 ? a.unsqueeze(0) : a;
        Tensor[] temporaries = new Tensor[5];
        Tensor result = null;
        try {
            int[] batch = batchShape(op, x, b);
            long[] ax = expanded(batch, x.size(-2), x.size(-1));
            long[] bx = expanded(batch, b.size(-2), b.size(-1));
            long count = Shapes.numel(batch);
            temporaries[0] = x.expand(ax);
            temporaries[1] = temporaries[0].reshape(count, x.size(-2), x.size(-1));
            temporaries[2] = b.expand(bx);
            temporaries[3] = temporaries[2].reshape(count, b.size(-2), b.size(-1));
            Tensor out = bmm(temporaries[1], temporaries[3]);
            temporaries[4] = out;
            long[] shape = expanded(batch, x.size(-2), b.size(-1));
            Tensor viewed = out.view(shape);
            result = a.dim() == 1 ? viewed.squeeze(-2) : viewed;
            if (viewed != result) {
                viewed.close();
            }
            return result;
        } finally {
            Op.closeTemporary(x, a);
            for (Tensor t : temporaries) {
                Op.closeTemporary(t, result);
            }
        }
    }

    private static int[] batchShape(String op, Tensor a, Tensor b) {
        int rank = Math.max(a.dim(), b.dim()) - 2;
        int[] out = new int[rank];
        for (int i = 0; i < rank; i++) {
            int ia = i - (rank - (a.dim() - 2));
            int ib = i - (rank - (b.dim() - 2));
            int sa = ia < 0 ? 1 : a.sizes[ia];
            int sb = ib < 0 ? 1 : b.sizes[ib];
            if (sa != sb && sa != 1 && sb != 1) {
                throw cannotMultiply(op, a, b);
            }
            out[i] = Math.max(sa, sb);
        }
        return out;
    }

    private static long[] expanded(int[] batch, long rows, long cols) {
        long[] s = new long[batch.length + 2];
        for (int i = 0; i < batch.length; i++) {
            s[i] = batch[i];
        }
        s[batch.length] = rows;
        s[batch.length + 1] = cols;
        return s;
    }

    static Tensor mm(Tensor a, Tensor b) {
        return MM.call(new Tensor[] {a, b}, null, null, null);
    }

    static Tensor bmm(Tensor a, Tensor b) {
        return BMM.call(new Tensor[] {a, b}, null, null, null);
    }

    static Tensor matmul(Tensor a, Tensor b) {
        return MATMUL.call(new Tensor[] {a, b}, null, null, null);
    }

    static Tensor linear(Tensor x, Tensor weight, Tensor bias) {
        return LINEAR.call(new Tensor[] {x, weight, bias}, null, null, null);
    }

    static Tensor conv2d(Tensor x, Tensor weight, Tensor bias, int[] stride, int[] padding, int[] dilation) {
        return CONV2D.call(new Tensor[] {x, weight, bias}, null, new long[][] {Shapes.toLongs(stride),
            Shapes.toLongs(padding), Shapes.toLongs(dilation)}, null);
    }

    static Tensor maxPool2d(Tensor x, int[] kernel, int[] stride, int[] padding) {
        return MAX_POOL2D.call(new Tensor[] {x}, null, new long[][] {Shapes.toLongs(kernel), Shapes.toLongs(stride),
            Shapes.toLongs(padding)}, null);
    }
}
