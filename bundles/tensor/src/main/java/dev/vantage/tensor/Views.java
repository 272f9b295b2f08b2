package dev.vantage.tensor;

import java.util.Arrays;

import dev.vantage.tensor.spi.KernelOps;

/**
 * Views (new sizes and strides over the same storage), copies between layouts, devices and dtypes, and the ops
 * that gather or join slices: {@code cat} and {@code index_select}. A view op's forward makes the view; its
 * integer lists are what the op shows hooks and what its backward reads again.
 */
final class Views {

    /** {@code view} and {@code _unsafe_view}: another shape, one size may be -1, over a contiguous tensor. */
    private static final class ViewAs extends Op {
        ViewAs(String name, String node) {
            super(Op.forward(name).shows(1, 0, 1).backward(node));
        }

        @Override
        Tensor forward(OpThread t, Device device, Tensor[] in, double[] scalars, long[][] ints) {
            Tensor x = in[0];
            int[] sizes = inferShape(name, x, ints[0]);
            if (!x.isContiguous()) {
                throw new IllegalArgumentException(name + ": view size " + Arrays.toString(ints[0]) + " is not"
                        + " compatible with the strides of " + describe(x) + "; use reshape(...) instead");
            }
            return Tensor.view(x, sizes, Shapes.contiguousStrides(sizes), x.offset);
        }

        @Override
        Tensor[] backward(Node n, Tensor g) {
            return grads(g.reshape(Shapes.toLongs(n.size(0))));
        }
    }

    static final Op VIEW = new ViewAs("aten::view", "ViewBackward0");
    static final Op UNSAFE_VIEW = new ViewAs("aten::_unsafe_view", "UnsafeViewBackward0");

    static final Op RESHAPE = new Op(Op.composite("aten::reshape").shows(1, 0, 1)) {
        @Override
        Tensor forward(OpThread t, Device device, Tensor[] in, double[] scalars, long[][] ints) {
            Tensor x = in[0];
            if (x.isContiguous()) {
                return VIEW.call(in, null, ints, null);
            }
            Tensor copy = cloneOf(x);
            try {
                return UNSAFE_VIEW.call(new Tensor[] {copy}, null, ints, null);
            } finally {
                copy.close();   // the view holds the copy's memory
            }
        }
    };

    /** {@code transpose} and {@code permute}: the dimensions reordered by the permutation in {@code ints[0]}. */
    private static final class Permutation extends Op {
        Permutation(String name, String node) {
            super(Op.forward(name).shows(1, 0, 1).backward(node));
        }

        @Override
        Tensor forward(OpThread t, Device device, Tensor[] in, double[] scalars, long[][] ints) {
            Tensor x = in[0];
            long[] perm = ints[0];
            int[] sizes = new int[perm.length];
            int[] strides = new int[perm.length];
            for (int i = 0; i < perm.length; i++) {
                sizes[i] = x.sizes[(int) perm[i]];
                strides[i] = x.strides[(int) perm[i]];
            }
            return Tensor.view(x, sizes, strides, x.offset);
        }

        @Override
        Tensor[] backward(Node n, Tensor g) {
            long[] perm = n.ints(0);
            int[] inverse = new int[perm.length];
            for (int i = 0; i < perm.length; i++) {
                inverse[(int) perm[i]] = i;
            }
            return grads(permute(g, inverse));
        }
    }

    static final Op TRANSPOSE = new Permutation("aten::transpose", "TransposeBackward0");
    static final Op PERMUTE = new Permutation("aten::permute", "PermuteBackward0");

    static final Op T = new Op(Op.composite("aten::t")) {
        @Override
        Tensor forward(OpThread t, Device device, Tensor[] in, double[] scalars, long[][] ints) {
            return transpose(in[0], 0, 1);
        }
    };

    /** Elements {@code [start, end)} along a dimension: {@code ints} is {@code {{dim}, {start}, {end}}}. */
    static final Op SLICE = new Op(Op.forward("aten::slice").shows(1, 0, 3).backward("SliceBackward0")) {
        @Override
        Tensor forward(OpThread t, Device device, Tensor[] in, double[] scalars, long[][] ints) {
            Tensor x = in[0];
            int d = Shapes.dim(name, (int) ints[0][0], x.dim());
            long[] range = range(x.sizes[d], ints[1][0], ints[2][0]);
            int[] sizes = x.sizes.clone();
            sizes[d] = (int) (range[1] - range[0]);
            return Tensor.view(x, sizes, x.strides, x.offset + (int) range[0] * x.strides[d]);
        }

        @Override
        Tensor[] backward(Node n, Tensor g) {
            int[] full = n.size(0);
            int d = Shapes.dim(name, (int) n.ints(0)[0], full.length);
            long[] range = range(full[d], n.ints(1)[0], n.ints(2)[0]);
            Tensor z = Creation.zeros(g.device(), DType.FLOAT32, full);
            slice(z, d, range[0], range[1]).copy_(g);
            return grads(z);
        }

        /** The slice's start and end, clamped into {@code [0, size]} with negative ones counted from the end. */
        private long[] range(int size, long start, long end) {
            long s = Math.max(0, Math.min(size, start < 0 ? start + size : start));
            long e = Math.max(s, Math.min(size, end < 0 ? end + size : end));
            return new long[] {s, e};
        }
    };

    static final Op UNSQUEEZE = new Op(Op.forward("aten::unsqueeze").shows(1, 0, 1).backward("UnsqueezeBackward0")) {
        @Override
        Tensor forward(OpThread t, Device device, Tensor[] in, double[] scalars, long[][] ints) {
            Tensor x = in[0];
            int d = Shapes.dim(name, (int) ints[0][0], x.dim() + 1);
            int[] sizes = new int[x.dim() + 1];
            int[] strides = new int[x.dim() + 1];
            for (int i = 0, j = 0; i < sizes.length; i++) {
                if (i == d) {
                    sizes[i] = 1;
                    strides[i] = j < x.dim() ? x.strides[j] * x.sizes[j] : 1;
                } else {
                    sizes[i] = x.sizes[j];
                    strides[i] = x.strides[j++];
                }
            }
            return Tensor.view(x, sizes, strides, x.offset);
        }

        @Override
        Tensor[] backward(Node n, Tensor g) {
            return grads(squeeze(g, Shapes.dim(name, (int) n.ints(0)[0], n.size(0).length + 1)));
        }
    };

    /** Removes a dimension of size 1; a dimension of another size leaves the tensor as it is. */
    static final Op SQUEEZE = new Op(Op.forward("aten::squeeze").shows(1, 0, 1).backward("SqueezeBackward1")) {
        @Override
        Tensor forward(OpThread t, Device device, Tensor[] in, double[] scalars, long[][] ints) {
            Tensor x = in[0];
            int d = Shapes.dim(name, (int) ints[0][0], x.dim());
            if (x.sizes[d] != 1) {
                return x;
            }
            int[] sizes = new int[x.dim() - 1];
            int[] strides = new int[x.dim() - 1];
            for (int i = 0, j = 0; i < x.dim(); i++) {
                if (i != d) {
                    sizes[j] = x.sizes[i];
                    strides[j++] = x.strides[i];
                }
            }
            return Tensor.view(x, sizes, strides, x.offset);
        }

        @Override
        Tensor[] backward(Node n, Tensor g) {
            return grads(unsqueeze(g, Shapes.dim(name, (int) n.ints(0)[0], n.size(0).length)));
        }
    };

    /** Repeats size-1 dimensions to a larger shape ({@code ints[0]}, -1 keeps a size) with stride 0. */
    static final Op EXPAND = new Op(Op.forward("aten::expand").shows(1, 0, 1).backward("ExpandBackward0")) {
        @Override
        Tensor forward(OpThread t, Device device, Tensor[] in, double[] scalars, long[][] ints) {
            Tensor x = in[0];
            long[] shape = ints[0];
            if (shape.length < x.dim()) {
                throw new IllegalArgumentException(name + ": cannot expand " + describe(x) + " to "
                        + Arrays.toString(shape));
            }
            int lead = shape.length - x.dim();
            int[] sizes = new int[shape.length];
            int[] strides = new int[shape.length];
            for (int i = 0; i < shape.length; i++) {
                int own = i < lead ? 1 : x.sizes[i - lead];
                long want = shape[i] == -1 ? own : shape[i];
                if (i < lead && shape[i] == -1 || want != own && own != 1 || want < 0) {
                    throw new IllegalArgumentException(name + ": cannot expand " + describe(x) + " to "
                            + Arrays.toString(shape));
                }
                sizes[i] = (int) want;
                strides[i] = i < lead || own == 1 && want != 1 ? 0 : x.strides[i - lead];
            }
            Shapes.checked(Shapes.toLongs(sizes));
            return Tensor.view(x, sizes, strides, x.offset);
        }

        @Override
        Tensor[] backward(Node n, Tensor g) {
            return grads(Pointwise.sumTo(g, n.size(0)));
        }
    };

    static final Op FLATTEN = new Op(Op.composite("aten::flatten").shows(1, 0, 2)) {
        @Override
        Tensor forward(OpThread t, Device device, Tensor[] in, double[] scalars, long[][] ints) {
            Tensor x = in[0];
            int d = x.dim() == 0 ? 0 : Shapes.dim(name, (int) ints[0][0], x.dim());
            long[] shape = new long[d + 1];
            for (int i = 0; i < d; i++) {
                shape[i] = x.sizes[i];
            }
            shape[d] = -1;
            return x.numel() == 0 ? x : reshape(x, shape);
        }
    };

    static final Op DETACH = new Op(Op.forward("aten::detach")) {
        @Override
        Tensor forward(OpThread t, Device device, Tensor[] in, double[] scalars, long[][] ints) {
            Tensor x = in[0];
            return Tensor.view(x, x.sizes, x.strides, x.offset);
        }
    };

    static final Op CONTIGUOUS = new Op(Op.composite("aten::contiguous")) {
        @Override
        Tensor forward(OpThread t, Device device, Tensor[] in, double[] scalars, long[][] ints) {
            return cloneOf(in[0]);
        }
    };

    /** A contiguous copy, made by {@code aten::copy_} into a new tensor of the input's dtype on its device. */
    static final Op CLONE = new Op(Op.forward("aten::clone").backward("CloneBackward0")) {
        @Override
        Tensor forward(OpThread t, Device device, Tensor[] in, double[] scalars, long[][] ints) {
            Tensor x = in[0];
            Tensor out = empty(t, device, x.dtype(), x.sizes);
            copy(out, x);
            return out;
        }

        @Override
        Tensor[] backward(Node n, Tensor g) {
            return grads(g);
        }
    };

    /** {@code to}, with {@code {{target device's id}, {dtype's ordinal}}}: its copy op inside, as torch shows it. */
    static final Op TO = new Op(Op.composite("aten::to").crossDevice().shows(1, 2, 0)) {
        @Override
        Tensor forward(OpThread t, Device device, Tensor[] in, double[] scalars, long[][] ints) {
            return TO_COPY.call(in, null, ints, null);
        }
    };

    /**
     * A copy on another device or in another dtype, with {@code {{target device's id}, {dtype's ordinal}}}: runs on
     * the target device, made by {@code aten::copy_}.
     */
    static final Op TO_COPY = new Op(Op.forward("aten::_to_copy").crossDevice().shows(1, 2, 0)
            .backward("ToCopyBackward0")) {
        @Override
        Tensor forward(OpThread t, Device device, Tensor[] in, double[] scalars, long[][] ints) {
            Tensor x = in[0];
            Tensor out = empty(t, device, DType.values()[(int) ints[1][0]], x.sizes);
            copy(out, x);
            return out;
        }

        @Override
        Tensor[] backward(Node n, Tensor g) {
            return grads(g.to(n.device()));
        }
    };

    /**
     * {@code self = src}, broadcast to self's shape, from any device and dtype: the kernel of whichever side is not
     * the host, so a device bundle moves its own data.
     */
    static final Op COPY_ = new Op(Op.kernel(KernelOps.COPY_).inPlace().crossDevice().shows(2, 0, 0)) {
        @Override
        int[] shape(Tensor[] in, double[] scalars, long[][] ints) {
            Tensor self = in[0];
            Tensor src = in[1];
            if (!Arrays.equals(Shapes.broadcast(name, self.sizes, src.sizes, self.device()), self.sizes)) {
                throw new IllegalArgumentException(name + ": " + describe(src) + " does not broadcast to "
                        + describe(self));
            }
            return self.sizes;
        }

        @Override
        Device device(Tensor[] in, long[][] ints) {
            Device self = in[0].device();
            return self.equals(Device.CPU) ? in[1].device() : self;
        }
    };

    /** Joins tensors along dimension {@code ints[0][0]}, normalised in place for the kernel. */
    static final Op CAT = new Op(Op.kernel(KernelOps.CAT).showsList(1).sameDtype().backward("CatBackward0")) {
        @Override
        int[] shape(Tensor[] in, double[] scalars, long[][] ints) {
            Tensor first = in[0];
            int d = Shapes.dim(name, (int) ints[0][0], first.dim());
            int[] sizes = first.sizes.clone();
            sizes[d] = 0;
            for (Tensor t : in) {
                boolean fits = t.dim() == first.dim() && t.dtype() == first.dtype();
                for (int i = 0; fits && i < t.dim(); i++) {
                    fits = i == d || t.sizes[i] == first.sizes[i];
                }
                if (!fits) {
                    throw new IllegalArgumentException(name + ": " + describe(t) + " does not match "
                            + describe(first) + " outside dimension " + ints[0][0]);
                }
                sizes[d] += t.sizes[d];
            }
            ints[0][0] = d;
            return sizes;
        }

        @Override
        Tensor[] backward(Node n, Tensor g) {
            int d = (int) n.ints(0)[0];
            Tensor[] parts = new Tensor[n.inputCount()];
            for (int i = 0, at = 0; i < parts.length; at += n.size(i++)[d]) {
                parts[i] = slice(g, d, at, at + n.size(i)[d]);
            }
            return parts;
        }
    };

    /** Slices along dimension {@code ints[0][0]} picked by an int64 index: {@code (self, index)}. */
    static final Op INDEX_SELECT = new Op(Op.kernel(KernelOps.INDEX_SELECT).shows(2, 0, 1).sameDtype()
            .backward("IndexSelectBackward0")) {
        @Override
        int[] shape(Tensor[] in, double[] scalars, long[][] ints) {
            Tensor x = in[0];
            Tensor index = in[1];
            if (x.dim() == 0) {
                throw new IllegalArgumentException(name + ": cannot index a 0-d tensor");
            }
            int d = Shapes.dim(name, (int) ints[0][0], x.dim());
            if (index.dtype() != DType.INT64 || index.dim() > 1) {
                throw new IllegalArgumentException(name + ": the index must be a 1-d long tensor, not "
                        + describe(index));
            }
            ints[0][0] = d;
            int[] sizes = x.sizes.clone();
            sizes[d] = index.numel();
            return sizes;
        }

        @Override
        int saves(Tensor[] in) {
            return 2;
        }

        @Override
        Tensor[] backward(Node n, Tensor g) {
            return grads(indexAdd(Creation.zeros(g.device(), DType.FLOAT32, n.size(0)), (int) n.ints(0)[0],
                    n.input(1), g));
        }
    };

    /** In place: adds {@code source}'s slices into {@code self} at {@code index} along {@code ints[0][0]}. */
    static final Op INDEX_ADD_ = new Op(Op.kernel(KernelOps.INDEX_ADD_).inPlace().shows(3, 1, 1)) {
        @Override
        int[] shape(Tensor[] in, double[] scalars, long[][] ints) {
            Tensor self = in[0];
            Tensor index = in[1];
            Tensor source = in[2];
            int dim = (int) ints[0][0];
            if (self.dim() == 0 || index.dtype() != DType.INT64 || index.dim() > 1 || source.dim() != self.dim()
                    || source.sizes[dim] != index.numel()) {
                throw new IllegalArgumentException(name + ": index " + describe(index) + " and source "
                        + describe(source) + " do not fit " + describe(self));
            }
            return self.sizes;
        }
    };

    private Views() {
    }

    /** Resolves a requested shape with at most one -1 against an element count. */
    private static int[] inferShape(String op, Tensor t, long[] shape) {
        int infer = -1;
        long known = 1;
        for (int i = 0; i < shape.length; i++) {
            if (shape[i] == -1) {
                if (infer >= 0) {
                    throw new IllegalArgumentException(op + ": only one dimension can be -1 in "
                            + Arrays.toString(shape));
                }
                infer = i;
            } else if (shape[i] < 0) {
                throw new IllegalArgumentException(op + ": negative size in " + Arrays.toString(shape));
            } else {
                known *= shape[i];
            }
        }
        long[] resolved = shape.clone();
        if (infer >= 0) {
            if (known == 0 || t.numel() % known != 0) {
                throw new IllegalArgumentException(op + ": shape " + Arrays.toString(shape) + " is invalid for "
                        + Op.describe(t));
            }
            resolved[infer] = t.numel() / known;
        }
        int[] sizes = Shapes.checked(resolved);
        if (Shapes.numel(sizes) != t.numel()) {
            throw new IllegalArgumentException(op + ": shape " + Arrays.toString(shape) + " is invalid for "
                    + Op.describe(t) + " (" + t.numel() + " elements)");
        }
        return sizes;
    }

    static Tensor view(Tensor t, long[] shape) {
        return VIEW.call(new Tensor[] {t}, null, new long[][] {shape}, null);
    }

    static Tensor reshape(Tensor t, long[] shape) {
        return RESHAPE.call(new Tensor[] {t}, null, new long[][] {shape}, null);
    }

    static Tensor transpose(Tensor t, int dim0, int dim1) {
        int d0 = Shapes.dim(TRANSPOSE.name, dim0, t.dim());
        int d1 = Shapes.dim(TRANSPOSE.name, dim1, t.dim());
        long[] perm = identity(t.dim());
        perm[d0] = d1;
        perm[d1] = d0;
        return TRANSPOSE.call(new Tensor[] {t}, null, new long[][] {perm}, null);
    }

    static Tensor t(Tensor t) {
        if (t.dim() != 2) {
            throw new IllegalArgumentException("aten::t: expected a 2-d tensor, got " + Op.describe(t));
        }
        return T.call(new Tensor[] {t}, null, null, null);
    }

    static Tensor permute(Tensor t, int[] dims) {
        if (dims.length != t.dim()) {
            throw new IllegalArgumentException("aten::permute: " + Arrays.toString(dims) + " does not list the "
                    + t.dim() + " dimensions of " + Op.describe(t));
        }
        long[] perm = new long[dims.length];
        boolean[] seen = new boolean[dims.length];
        for (int i = 0; i < dims.length; i++) {
            int d = Shapes.dim(PERMUTE.name, dims[i], t.dim());
            if (seen[d]) {
                throw new IllegalArgumentException("aten::permute: dimension " + dims[i] + " repeats in "
                        + Arrays.toString(dims));
            }
            seen[d] = true;
            perm[i] = d;
        }
        return PERMUTE.call(new Tensor[] {t}, null, new long[][] {perm}, null);
    }

    private static long[] identity(int n) {
        long[] p = new long[n];
        for (int i = 0; i < n; i++) {
            p[i] = i;
        }
        return p;
    }

    static Tensor slice(Tensor t, int dim, long start, long end) {
        return SLICE.call(new Tensor[] {t}, null, new long[][] {{dim}, {start}, {end}}, null);
    }

    static Tensor unsqueeze(Tensor t, int dim) {
        return UNSQUEEZE.call(new Tensor[] {t}, null, new long[][] {{dim}}, null);
    }

    static Tensor squeeze(Tensor t, int dim) {
        return SQUEEZE.call(new Tensor[] {t}, null, new long[][] {{dim}}, null);
    }

    static Tensor expand(Tensor t, long[] shape) {
        return EXPAND.call(new Tensor[] {t}, null, new long[][] {shape}, null);
    }

    static Tensor flatten(Tensor t, int startDim) {
        return FLATTEN.call(new Tensor[] {t}, null, new long[][] {{startDim}, {-1}}, null);
    }

    static Tensor detach(Tensor t) {
        return DETACH.call(new Tensor[] {t}, null, null, null);
    }

    static Tensor contiguous(Tensor t) {
        return t.isContiguous() ? t : CONTIGUOUS.call(new Tensor[] {t}, null, null, null);
    }

    static Tensor cloneOf(Tensor t) {
        return CLONE.call(new Tensor[] {t}, null, null, null);
    }

    static Tensor to(Tensor t, Device device, DType dtype) {
        if (t.device().equals(device) && t.dtype() == dtype) {
            return t;
        }
        if (dtype != DType.FLOAT32 && Autograd.needs(t)) {
            throw new IllegalArgumentException("aten::to: " + Op.describe(t) + " requires a gradient and"
                    + " cannot become " + dtype.profileName());
        }
        return TO.call(new Tensor[] {t}, null, new long[][] {{Devices.id(device)}, {dtype.ordinal()}}, null);
    }

    /** The public {@code copy_}, and every copy the runtime makes: {@code aten::copy_}. */
    static Tensor copyInto(Tensor self, Tensor src) {
        return COPY_.call(new Tensor[] {self, src}, null, null, null);
    }

    private static void copy(Tensor self, Tensor src) {
        COPY_.call(new Tensor[] {self, src}, null, null, null);
    }

    static Tensor cat(Tensor[] tensors, int dim) {
        if (tensors.length == 0) {
            throw new IllegalArgumentException("aten::cat: expected at least one tensor");
        }
        return CAT.call(tensors.clone(), null, new long[][] {{dim}}, null);
    }

    static Tensor indexSelect(Tensor t, int dim, Tensor index) {
        return INDEX_SELECT.call(new Tensor[] {t, index}, null, new long[][] {{dim}}, null);
    }

    static Tensor indexAdd(Tensor self, int dim, Tensor index, Tensor source) {
        return INDEX_ADD_.call(new Tensor[] {self, index, source}, new double[] {1}, new long[][] {{dim}}, null);
    }
}
