package dev.vantage.tensor;

import java.util.Arrays;

import dev.vantage.tensor.internal.CallFrame;
import dev.vantage.tensor.internal.OpDef;
import dev.vantage.tensor.internal.Ops;
import dev.vantage.tensor.spi.KernelOps;

/** Matrix products, linear layers, 2-d convolution and max pooling, with their gradients. */
final class Linalg {

    static final OpDef MM = Ops.kernel(KernelOps.MM);
    static final OpDef BMM = Ops.kernel(KernelOps.BMM);
    static final OpDef ADDMM = Ops.kernel(KernelOps.ADDMM);
    static final OpDef MATMUL = Ops.composite("aten::matmul");
    static final OpDef LINEAR = Ops.composite("aten::linear");
    static final OpDef CONV2D = Ops.composite("aten::conv2d");
    static final OpDef CONVOLUTION = Ops.kernel(KernelOps.CONVOLUTION);
    static final OpDef CONVOLUTION_BACKWARD = Ops.kernel(KernelOps.CONVOLUTION_BACKWARD);
    static final OpDef MAX_POOL2D = Ops.composite("aten::max_pool2d");
    static final OpDef MAX_POOL2D_WITH_INDICES = Ops.kernel(KernelOps.MAX_POOL2D_WITH_INDICES);
    static final OpDef MAX_POOL2D_BACKWARD = Ops.kernel(KernelOps.MAX_POOL2D_WITH_INDICES_BACKWARD);

    private Linalg() {
    }

    private static IllegalArgumentException cannotMultiply(String op, Tensor a, Tensor b) {
        return new IllegalArgumentException(op + ": shapes " + Exec.describe(a, b) + " cannot be multiplied");
    }

    static Tensor mm(Tensor a, Tensor b) {
        boolean grad = Autograd.needs(a, b);
        long seq = grad ? Autograd.nextSequenceNumber() : -1;
        CallFrame f = CallFrame.begin(MM, seq, 2, a, b, null, 0, 0);
        try {
            Device device = Exec.device(MM.name(), a, b);
            Exec.requireFloat(MM.name(), a);
            Exec.requireFloat(MM.name(), b);
            if (a.dim() != 2 || b.dim() != 2 || a.sizes[1] != b.sizes[0]) {
                throw cannotMultiply(MM.name(), a, b);
            }
            Tensor out = Exec.empty(device, DType.FLOAT32, new int[] {a.sizes[0], b.sizes[1]});
            Exec.run(MM, device, new Tensor[] {a, b}, new Tensor[] {out}, null, null);
            if (grad) {
                Autograd.Saved sa = b.requiresGrad ? new Autograd.Saved(a) : null;
                Autograd.Saved sb = a.requiresGrad ? new Autograd.Saved(b) : null;
                Autograd.record(out, seq, "MmBackward0", g -> new Tensor[] {
                    sb == null ? null : mm(g, sb.get("MmBackward0").t()),
                    sa == null ? null : mm(sa.get("MmBackward0").t(), g)}, a, b);
            }
            return out;
        } finally {
            CallFrame.close(f);
        }
    }

    static Tensor bmm(Tensor a, Tensor b) {
        boolean grad = Autograd.needs(a, b);
        long seq = grad ? Autograd.nextSequenceNumber() : -1;
        CallFrame f = CallFrame.begin(BMM, seq, 2, a, b, null, 0, 0);
        try {
            Device device = Exec.device(BMM.name(), a, b);
            Exec.requireFloat(BMM.name(), a);
            Exec.requireFloat(BMM.name(), b);
            if (a.dim() != 3 || b.dim() != 3 || a.sizes[0] != b.sizes[0] || a.sizes[2] != b.sizes[1]) {
                throw cannotMultiply(BMM.name(), a, b);
            }
            Tensor out = Exec.empty(device, DType.FLOAT32, new int[] {a.sizes[0], a.sizes[1], b.sizes[2]});
            Exec.run(BMM, device, new Tensor[] {a, b}, new Tensor[] {out}, null, null);
            if (grad) {
                Autograd.Saved sa = b.requiresGrad ? new Autograd.Saved(a) : null;
                Autograd.Saved sb = a.requiresGrad ? new Autograd.Saved(b) : null;
                Autograd.record(out, seq, "BmmBackward0", g -> new Tensor[] {
                    sb == null ? null : bmm(g, sb.get("BmmBackward0").transpose(1, 2)),
                    sa == null ? null : bmm(sa.get("BmmBackward0").transpose(1, 2), g)}, a, b);
            }
            return out;
        } finally {
            CallFrame.close(f);
        }
    }

    static Tensor addmm(Tensor bias, Tensor a, Tensor b) {
        boolean grad = Autograd.needs(bias, a, b);
        long seq = grad ? Autograd.nextSequenceNumber() : -1;
        CallFrame f = CallFrame.begin(ADDMM, seq, 3, bias, a, b, 2, 0);
        try {
            Device device = Exec.device(ADDMM.name(), bias, a, b);
            Exec.requireFloat(ADDMM.name(), bias);
            Exec.requireFloat(ADDMM.name(), a);
            Exec.requireFloat(ADDMM.name(), b);
            if (a.dim() != 2 || b.dim() != 2 || a.sizes[1] != b.sizes[0]) {
                throw cannotMultiply(ADDMM.name(), a, b);
            }
            Tensor out = Exec.empty(device, DType.FLOAT32, new int[] {a.sizes[0], b.sizes[1]});
            if (!Arrays.equals(Shapes.broadcast(ADDMM.name(), out, bias), out.sizes)) {
                throw new IllegalArgumentException("aten::addmm: bias " + Exec.describe(bias)
                        + " does not broadcast to " + Arrays.toString(out.sizes));
            }
            Exec.run(ADDMM, device, new Tensor[] {bias, a, b}, new Tensor[] {out}, new double[] {1, 1}, null);
            if (grad) {
                Autograd.Saved sa = b.requiresGrad ? new Autograd.Saved(a) : null;
                Autograd.Saved sb = a.requiresGrad ? new Autograd.Saved(b) : null;
                int[] biasShape = bias.sizes;
                boolean needBias = bias.requiresGrad;
                Autograd.record(out, seq, "AddmmBackward0", g -> new Tensor[] {
                    needBias ? Pointwise.sumTo(g, biasShape) : null,
                    sb == null ? null : mm(g, sb.get("AddmmBackward0").t()),
                    sa == null ? null : mm(sa.get("AddmmBackward0").t(), g)}, bias, a, b);
            }
            return out;
        } finally {
            CallFrame.close(f);
        }
    }

    /** torch's {@code matmul}: dot, matrix-vector, matrix and broadcast batched products. */
    static Tensor matmul(Tensor a, Tensor b) {
        CallFrame f = CallFrame.begin(MATMUL, -1, 2, a, b, null, 0, 0);
        try {
            if (a.dim() == 0 || b.dim() == 0) {
                throw cannotMultiply(MATMUL.name(), a, b);
            }
            // the views and copies made on the way are the op's temporaries: closed before it returns
            if (a.dim() == 1 && b.dim() == 1) {
                if (a.sizes[0] != b.sizes[0]) {
                    throw cannotMultiply(MATMUL.name(), a, b);
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
                    Exec.closeTemporary(x, a);
                    Exec.closeTemporary(y, b);
                    Exec.closeTemporary(out, result);
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
                    Exec.closeTemporary(y, b);
                    Exec.closeTemporary(rows, a);
                    Exec.closeTemporary(out);
                    Exec.closeTemporary(folded, result);
                }
            }
            Tensor x = a.dim() == 1 ? a.unsqueeze(0) : a;
            Tensor[] temporaries = new Tensor[5];
            Tensor result = null;
            try {
                int[] batch = batchShape(x, b);
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
                Exec.closeTemporary(x, a);
                for (Tensor t : temporaries) {
                    Exec.closeTemporary(t, result);
                }
            }
        } finally {
            CallFrame.close(f);
        }
    }

    private static int[] batchShape(Tensor a, Tensor b) {
        int rank = Math.max(a.dim(), b.dim()) - 2;
        int[] out = new int[rank];
        for (int i = 0; i < rank; i++) {
            int ia = i - (rank - (a.dim() - 2));
            int ib = i - (rank - (b.dim() - 2));
            int sa = ia < 0 ? 1 : a.sizes[ia];
            int sb = ib < 0 ? 1 : b.sizes[ib];
            if (sa != sb && sa != 1 && sb != 1) {
                throw cannotMultiply(MATMUL.name(), a, b);
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

    /** {@code x @ weight.T + bias}, as torch's linear: addmm for 2-d inputs, matmul and add otherwise. */
    static Tensor linear(Tensor x, Tensor weight, Tensor bias) {
        CallFrame f = CallFrame.begin(LINEAR, -1, 3, x, weight, bias, 0, 0);
        try {
            if (weight.dim() != 2 || x.dim() == 0 || x.size(-1) != weight.sizes[1]) {
                throw new IllegalArgumentException("aten::linear: input " + Exec.describe(x) + " does not fit weight "
                        + Exec.describe(weight));
            }
            Tensor wt = weight.t();
            try {
                if (x.dim() == 2 && bias != null) {
                    return addmm(bias, x, wt);
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
        } finally {
            CallFrame.close(f);
        }
    }

    private static int outSize(int in, int kernel, int stride, int padding, int dilation) {
        return (in + 2 * padding - dilation * (kernel - 1) - 1) / stride + 1;
    }

    static Tensor conv2d(Tensor x, Tensor weight, Tensor bias, int[] stride, int[] padding, int[] dilation) {
        CallFrame outer = CallFrame.begin(CONV2D, -1, 3, x, weight, bias, 0, 3);
        try {
            String op = CONVOLUTION.name();
            Device device = Exec.device(op, x, weight, bias);
            Exec.requireFloat(op, x);
            Exec.requireFloat(op, weight);
            Exec.requireFloat(op, bias);
            Exec.requireRank(op, x, 4, "an input [N, C, H, W]");
            Exec.requireRank(op, weight, 4, "a weight [O, C, kh, kw]");
            boolean biasFits = bias == null || bias.dim() == 1 && bias.sizes[0] == weight.sizes[0];
            if (x.sizes[1] != weight.sizes[1] || !biasFits) {
                throw new IllegalArgumentException(op + ": input, weight and bias " + Exec.describe(x, weight, bias)
                        + " do not fit together");
            }
            if (stride[0] <= 0 || stride[1] <= 0 || padding[0] < 0 || padding[1] < 0 || dilation[0] <= 0
                    || dilation[1] <= 0) {
                throw new IllegalArgumentException(op + ": stride " + Arrays.toString(stride) + ", padding "
                        + Arrays.toString(padding) + " and dilation " + Arrays.toString(dilation)
                        + " must be positive (padding may be 0)");
            }
            int oh = outSize(x.sizes[2], weight.sizes[2], stride[0], padding[0], dilation[0]);
            int ow = outSize(x.sizes[3], weight.sizes[3], stride[1], padding[1], dilation[1]);
            if (oh <= 0 || ow <= 0) {
                throw new IllegalArgumentException(op + ": the kernel of " + Exec.describe(weight) + " does not fit"
                        + " the padded input " + Exec.describe(x));
            }
            boolean grad = Autograd.needs(x, weight, bias);
            long seq = grad ? Autograd.nextSequenceNumber() : -1;
            CallFrame f = CallFrame.begin(CONVOLUTION, seq, 3, x, weight, bias, 0, 3);
            try {
                long[][] ints = {Shapes.toLongs(stride), Shapes.toLongs(padding), Shapes.toLongs(dilation)};
                Tensor out = Exec.empty(device, DType.FLOAT32, new int[] {x.sizes[0], weight.sizes[0], oh, ow});
                Exec.run(CONVOLUTION, device, new Tensor[] {x, weight, bias}, new Tensor[] {out}, null, ints);
                if (grad) {
                    Autograd.Saved sx = new Autograd.Saved(x);
                    Autograd.Saved sw = new Autograd.Saved(weight);
                    boolean hasBias = bias != null;
                    Autograd.record(out, seq, "ConvolutionBackward0", g -> convolutionBackward(g,
                            sx.get("ConvolutionBackward0"), sw.get("ConvolutionBackward0"), hasBias, ints),
                            x, weight, bias);
                }
                return out;
            } finally {
                CallFrame.close(f);
            }
        } finally {
            CallFrame.close(outer);
        }
    }

    private static Tensor[] convolutionBackward(Tensor g, Tensor x, Tensor w, boolean hasBias, long[][] ints) {
        CallFrame f = CallFrame.begin(CONVOLUTION_BACKWARD, -1, 3, g, x, w, 0, 4);
        try {
            Device device = g.device();
            Tensor gx = Exec.empty(device, DType.FLOAT32, x.sizes);
            Tensor gw = Exec.empty(device, DType.FLOAT32, w.sizes);
            Tensor gb = hasBias ? Exec.empty(device, DType.FLOAT32, new int[] {w.sizes[0]}) : null;
            Exec.run(CONVOLUTION_BACKWARD, device, new Tensor[] {g, x, w}, new Tensor[] {gx, gw, gb}, null,
                    new long[][] {ints[0], ints[1], ints[2], {hasBias ? 1 : 0}});
            return new Tensor[] {gx, gw, gb};
        } finally {
            CallFrame.close(f);
        }
    }

    static Tensor maxPool2d(Tensor x, int[] kernel, int[] stride, int[] padding) {
        CallFrame outer = CallFrame.begin(MAX_POOL2D, -1, 1, x, null, null, 0, 3);
        try {
            String op = MAX_POOL2D_WITH_INDICES.name();
            Exec.requireFloat(op, x);
            Exec.requireRank(op, x, 4, "an input [N, C, H, W]");
            if (kernel[0] <= 0 || kernel[1] <= 0 || stride[0] <= 0 || stride[1] <= 0 || padding[0] < 0
                    || padding[1] < 0) {
                throw new IllegalArgumentException(op + ": kernel " + Arrays.toString(kernel) + " and stride "
                        + Arrays.toString(stride) + " must be positive, padding " + Arrays.toString(padding)
                        + " not negative");
            }
            int oh = outSize(x.sizes[2], kernel[0], stride[0], padding[0], 1);
            int ow = outSize(x.sizes[3], kernel[1], stride[1], padding[1], 1);
            if (oh <= 0 || ow <= 0 || padding[0] * 2 > kernel[0] || padding[1] * 2 > kernel[1]) {
                throw new IllegalArgumentException(op + ": kernel " + Arrays.toString(kernel) + " with padding "
                        + Arrays.toString(padding) + " does not fit " + Exec.describe(x));
            }
            boolean grad = Autograd.needs(x);
            long seq = grad ? Autograd.nextSequenceNumber() : -1;
            CallFrame f = CallFrame.begin(MAX_POOL2D_WITH_INDICES, seq, 1, x, null, null, 0, 3);
            try {
                long[][] ints = {Shapes.toLongs(kernel), Shapes.toLongs(stride), Shapes.toLongs(padding)};
                int[] shape = {x.sizes[0], x.sizes[1], oh, ow};
                Tensor out = Exec.empty(x.device(), DType.FLOAT32, shape);
                Tensor indices = Exec.empty(x.device(), DType.INT64, shape);
                Exec.run(MAX_POOL2D_WITH_INDICES, x.device(), new Tensor[] {x}, new Tensor[] {out, indices}, null,
                        ints);
                if (grad) {
                    Autograd.Saved sx = new Autograd.Saved(x);
                    Autograd.Saved si = new Autograd.Saved(indices);
                    String node = "MaxPool2DWithIndicesBackward0";
                    Autograd.record(out, seq, node, g -> {
                        Tensor input = sx.get(node);
                        return new Tensor[] {Exec.gradient(MAX_POOL2D_BACKWARD, input.sizes, 3,
                                new Tensor[] {g, input, si.get(node)}, null, ints)};
                    }, x);
                }
                indices.close();   // the op's own: only the backward pass, through what it saved, needs it
                return out;
            } finally {
                CallFrame.close(f);
            }
        } finally {
            CallFrame.close(outer);
        }
    }
}
