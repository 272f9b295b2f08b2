package dev.vantage.tensor;

import java.util.Arrays;

import dev.vantage.tensor.internal.CallFrame;
import dev.vantage.tensor.internal.OpDef;
import dev.vantage.tensor.internal.Ops;
import dev.vantage.tensor.spi.KernelOps;

/**
 * Views (new sizes and strides over the same storage), copies between layouts, devices and dtypes, and the ops
 * that gather or join slices: {@code cat} and {@code index_select}.
 */
final class Views {

    static final OpDef VIEW = Ops.composite("aten::view");
    static final OpDef RESHAPE = Ops.composite("aten::reshape");
    static final OpDef UNSAFE_VIEW = Ops.composite("aten::_unsafe_view");
    static final OpDef TRANSPOSE = Ops.composite("aten::transpose");
    static final OpDef T = Ops.composite("aten::t");
    static final OpDef PERMUTE = Ops.composite("aten::permute");
    static final OpDef SLICE = Ops.composite("aten::slice");
    static final OpDef UNSQUEEZE = Ops.composite("aten::unsqueeze");
    static final OpDef SQUEEZE = Ops.composite("aten::squeeze");
    static final OpDef EXPAND = Ops.composite("aten::expand");
    static final OpDef FLATTEN = Ops.composite("aten::flatten");
    static final OpDef DETACH = Ops.composite("aten::detach");
    static final OpDef CONTIGUOUS = Ops.composite("aten::contiguous");
    static final OpDef CLONE = Ops.composite("aten::clone");
    static final OpDef TO = Ops.composite("aten::to");
    static final OpDef TO_COPY = Ops.composite("aten::_to_copy");
    static final OpDef COPY_ = Ops.kernel(KernelOps.COPY_);
    static final OpDef CAT = Ops.kernel(KernelOps.CAT);
    static final OpDef INDEX_SELECT = Ops.kernel(KernelOps.INDEX_SELECT);
    static final OpDef INDEX_ADD_ = Ops.kernel(KernelOps.INDEX_ADD_);

    private Views() {
    }

    private static Tensor as(Tensor t, int[] sizes, int[] strides, int offset) {
        return Tensor.view(t, sizes, strides, offset);
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
                        + Exec.describe(t));
            }
            resolved[infer] = t.numel() / known;
        }
        int[] sizes = Shapes.checked(resolved);
        if (Shapes.numel(sizes) != t.numel()) {
            throw new IllegalArgumentException(op + ": shape " + Arrays.toString(shape) + " is invalid for "
                    + Exec.describe(t) + " (" + t.numel() + " elements)");
        }
        return sizes;
    }

    static Tensor view(Tensor t, long[] shape) {
        return viewAs(VIEW, "ViewBackward0", t, shape);
    }

    private static Tensor viewAs(OpDef op, String node, Tensor t, long[] shape) {
        boolean grad = Autograd.needs(t);
        long seq = grad ? Autograd.nextSequenceNumber() : -1;
        CallFrame f = CallFrame.begin(op, seq, 1, t, null, null, 0, 1);
        try {
            int[] sizes = inferShape(op.name(), t, shape);
            if (!t.isContiguous()) {
                throw new IllegalArgumentException(op + ": view size " + Arrays.toString(shape) + " is not"
                        + " compatible with the strides of " + Exec.describe(t) + "; use reshape(...) instead");
            }
            Tensor out = as(t, sizes, Shapes.contiguousStrides(sizes), t.offset);
            if (grad) {
                long[] back = Shapes.toLongs(t.sizes);
                Autograd.record(out, seq, node, g -> new Tensor[] {g.reshape(back)}, t);
            }
            return out;
        } finally {
            CallFrame.close(f);
        }
    }

    static Tensor reshape(Tensor t, long[] shape) {
        CallFrame f = CallFrame.begin(RESHAPE, -1, 1, t, null, null, 0, 1);
        try {
            if (t.isContiguous()) {
                return view(t, shape);
            }
            Tensor copy = cloneOf(t);
            try {
                return viewAs(UNSAFE_VIEW, "UnsafeViewBackward0", copy, shape);
            } finally {
                copy.close();   // the view holds the copy's memory
            }
        } finally {
            CallFrame.close(f);
        }
    }

    static Tensor transpose(Tensor t, int dim0, int dim1) {
        int d0 = Shapes.dim(TRANSPOSE.name(), dim0, t.dim());
        int d1 = Shapes.dim(TRANSPOSE.name(), dim1, t.dim());
        int[] perm = identity(t.dim());
        perm[d0] = d1;
        perm[d1] = d0;
        return permuteAs(TRANSPOSE, "TransposeBackward0", t, perm);
    }

    static Tensor t(Tensor t) {
        if (t.dim() != 2) {
            throw new IllegalArgumentException("aten::t: expected a 2-d tensor, got " + Exec.describe(t));
        }
        CallFrame f = CallFrame.begin(T, -1, 1, t, null, null, 0, 0);
        try {
            return transpose(t, 0, 1);
        } finally {
            CallFrame.close(f);
        }
    }

    static Tensor permute(Tensor t, int[] dims) {
        if (dims.length != t.dim()) {
            throw new IllegalArgumentException("aten::permute: " + Arrays.toString(dims) + " does not list the "
                    + t.dim() + " dimensions of " + Exec.describe(t));
        }
        int[] perm = new int[dims.length];
        boolean[] seen = new boolean[dims.length];
        for (int i = 0; i < dims.length; i++) {
            perm[i] = Shapes.dim(PERMUTE.name(), dims[i], t.dim());
            if (seen[perm[i]]) {
                throw new IllegalArgumentException("aten::permute: dimension " + dims[i] + " repeats in "
                        + Arrays.toString(dims));
            }
            seen[perm[i]] = true;
        }
        return permuteAs(PERMUTE, "PermuteBackward0", t, perm);
    }

    private static int[] identity(int n) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = i;
        }
        return p;
    }

    private static Tensor permuteAs(OpDef op, String node, Tensor t, int[] perm) {
        boolean grad = Autograd.needs(t);
        long seq = grad ? Autograd.nextSequenceNumber() : -1;
        CallFrame f = CallFrame.begin(op, seq, 1, t, null, null, 0, 1);
        try {
            int[] sizes = new int[perm.length];
            int[] strides = new int[perm.length];
            for (int i = 0; i < perm.length; i++) {
                sizes[i] = t.sizes[perm[i]];
                strides[i] = t.strides[perm[i]];
            }
            Tensor out = as(t, sizes, strides, t.offset);
            if (grad) {
                int[] inverse = new int[perm.length];
                for (int i = 0; i < perm.length; i++) {
                    inverse[perm[i]] = i;
                }
                Autograd.record(out, seq, node, g -> new Tensor[] {permute(g, inverse)}, t);
            }
            return out;
        } finally {
            CallFrame.close(f);
        }
    }

    static Tensor slice(Tensor t, int dim, long start, long end) {
        boolean grad = Autograd.needs(t);
        long seq = grad ? Autograd.nextSequenceNumber() : -1;
        CallFrame f = CallFrame.begin(SLICE, seq, 1, t, null, null, 0, 3);
        try {
            int d = Shapes.dim(SLICE.name(), dim, t.dim());
            int size = t.sizes[d];
            long s = Math.max(0, Math.min(size, start < 0 ? start + size : start));
            long e = Math.max(s, Math.min(size, end < 0 ? end + size : end));
            int[] sizes = t.sizes.clone();
            sizes[d] = (int) (e - s);
            Tensor out = as(t, sizes, t.strides.clone(), t.offset + (int) s * t.strides[d]);
            if (grad) {
                int[] full = t.sizes;
                Autograd.record(out, seq, "SliceBackward0", g -> {
                    Tensor z = Creation.zeros(g.device(), DType.FLOAT32, full);
                    slice(z, d, s, e).copy_(g);
                    return new Tensor[] {z};
                }, t);
            }
            return out;
        } finally {
            CallFrame.close(f);
        }
    }

    static Tensor unsqueeze(Tensor t, int dim) {
        boolean grad = Autograd.needs(t);
        long seq = grad ? Autograd.nextSequenceNumber() : -1;
        CallFrame f = CallFrame.begin(UNSQUEEZE, seq, 1, t, null, null, 0, 1);
        try {
            int d = Shapes.dim(UNSQUEEZE.name(), dim, t.dim() + 1);
            int[] sizes = new int[t.dim() + 1];
            int[] strides = new int[t.dim() + 1];
            for (int i = 0, j = 0; i < sizes.length; i++) {
                if (i == d) {
                    sizes[i] = 1;
                    strides[i] = j < t.dim() ? t.strides[j] * t.sizes[j] : 1;
                } else {
                    sizes[i] = t.sizes[j];
                    strides[i] = t.strides[j++];
                }
            }
            Tensor out = as(t, sizes, strides, t.offset);
            if (grad) {
                Autograd.record(out, seq, "UnsqueezeBackward0", g -> new Tensor[] {squeeze(g, d)}, t);
            }
            return out;
        } finally {
            CallFrame.close(f);
        }
    }

    static Tensor squeeze(Tensor t, int dim) {
        boolean grad = Autograd.needs(t);
        long seq = grad ? Autograd.nextSequenceNumber() : -1;
        CallFrame f = CallFrame.begin(SQUEEZE, seq, 1, t, null, null, 0, 1);
        try {
            int d = Shapes.dim(SQUEEZE.name(), dim, t.dim());
            if (t.sizes[d] != 1) {
                return t;
            }
            int[] sizes = new int[t.dim() - 1];
            int[] strides = new int[t.dim() - 1];
            for (int i = 0, j = 0; i < t.dim(); i++) {
                if (i != d) {
                    sizes[j] = t.sizes[i];
                    strides[j++] = t.strides[i];
                }
            }
            Tensor out = as(t, sizes, strides, t.offset);
            if (grad) {
                Autograd.record(out, seq, "SqueezeBackward1", g -> new Tensor[] {unsqueeze(g, d)}, t);
            }
            return out;
        } finally {
            CallFrame.close(f);
        }
    }

    static Tensor expand(Tensor t, long[] shape) {
        boolean grad = Autograd.needs(t);
        long seq = grad ? Autograd.nextSequenceNumber() : -1;
        CallFrame f = CallFrame.begin(EXPAND, seq, 1, t, null, null, 0, 1);
        try {
            if (shape.length < t.dim()) {
                throw new IllegalArgumentException("aten::expand: cannot expand " + Exec.describe(t) + " to "
                        + Arrays.toString(shape));
            }
            int lead = shape.length - t.dim();
            int[] sizes = new int[shape.length];
            int[] strides = new int[shape.length];
            for (int i = 0; i < shape.length; i++) {
                int own = i < lead ? 1 : t.sizes[i - lead];
                long want = shape[i] == -1 ? own : shape[i];
                if (i < lead && shape[i] == -1 || want != own && own != 1 || want < 0) {
                    throw new IllegalArgumentException("aten::expand: cannot expand " + Exec.describe(t) + " to "
                            + Arrays.toString(shape));
                }
                sizes[i] = (int) want;
                strides[i] = i < lead || own == 1 && want != 1 ? 0 : t.strides[i - lead];
            }
            Shapes.checked(Shapes.toLongs(sizes));
            Tensor out = as(t, sizes, strides, t.offset);
            if (grad) {
                int[] back = t.sizes;
                Autograd.record(out, seq, "ExpandBackward0", g -> new Tensor[] {Pointwise.sumTo(g, back)}, t);
            }
            return out;
        } finally {
            CallFrame.close(f);
        }
    }

    static Tensor flatten(Tensor t, int startDim) {
        CallFrame f = CallFrame.begin(FLATTEN, -1, 1, t, null, null, 0, 2);
        try {
            int d = t.dim() == 0 ? 0 : Shapes.dim(FLATTEN.name(), startDim, t.dim());
            long[] shape = new long[d + 1];
            for (int i = 0; i < d; i++) {
                shape[i] = t.sizes[i];
            }
            shape[d] = -1;
            return t.numel() == 0 ? t : reshape(t, shape);
        } finally {
            CallFrame.close(f);
        }
    }

    static Tensor detach(Tensor t) {
        CallFrame f = CallFrame.begin(DETACH, -1, 1, t, null, null, 0, 0);
        try {
            return as(t, t.sizes, t.strides, t.offset);
        } finally {
            CallFrame.close(f);
        }
    }

    static Tensor contiguous(Tensor t) {
        if (t.isContiguous()) {
            return t;
        }
        CallFrame f = CallFrame.begin(CONTIGUOUS, -1, 1, t, null, null, 0, 0);
        try {
            return cloneOf(t);
        } finally {
            CallFrame.close(f);
        }
    }

    static Tensor cloneOf(Tensor t) {
        boolean grad = Autograd.needs(t);
        long seq = grad ? Autograd.nextSequenceNumber() : -1;
        CallFrame f = CallFrame.begin(CLONE, seq, 1, t, null, null, 0, 0);
        try {
            Tensor out = Exec.empty(t.device(), t.dtype(), t.sizes);
            copyKernel(out, t);
            if (grad) {
                Autograd.record(out, seq, "CloneBackward0", g -> new Tensor[] {g}, t);
            }
            return out;
        } finally {
            CallFrame.close(f);
        }
    }

    static Tensor to(Tensor t, Device device, DType dtype) {
        if (t.device().equals(device) && t.dtype() == dtype) {
            return t;
        }
        if (dtype != DType.FLOAT32 && Autograd.needs(t)) {
            throw new IllegalArgumentException("aten::to: " + Exec.describe(t) + " requires a gradient and"
                    + " cannot become " + dtype.profileName());
        }
        CallFrame outer = CallFrame.begin(TO, -1, 1, t, null, null, 2, 0);
        try {
            boolean grad = Autograd.needs(t);
            long seq = grad ? Autograd.nextSequenceNumber() : -1;
            CallFrame f = CallFrame.begin(TO_COPY, seq, 1, t, null, null, 2, 0);
            try {
                Tensor out = Exec.empty(device, dtype, t.sizes);
                copyKernel(out, t);
                if (grad) {
                    Device back = t.device();
                    Autograd.record(out, seq, "ToCopyBackward0", g -> new Tensor[] {g.to(back)}, t);
                }
                return out;
            } finally {
                CallFrame.close(f);
            }
        } finally {
            CallFrame.close(outer);
        }
    }

    /** The public {@code copy_}: checks autograd, then copies. */
    static Tensor copyInto(Tensor self, Tensor src) {
        Autograd.checkInPlace(COPY_.name(), self);
        Exec.requireWritable(COPY_.name(), self);
        copyKernel(self, src);
        return self;
    }

    /** {@code aten::copy_} on whichever side is not the host, so a device backend moves its own data. */
    private static void copyKernel(Tensor self, Tensor src) {
        CallFrame f = CallFrame.begin(COPY_, -1, 2, self, src, null, 0, 0);
        try {
            if (!Arrays.equals(Shapes.broadcast(COPY_.name(), self, src), self.sizes)) {
                throw new IllegalArgumentException("aten::copy_: " + Exec.describe(src) + " does not broadcast to "
                        + Exec.describe(self));
            }
            Device on = self.device().equals(Device.CPU) ? src.device() : self.device();
            Exec.run(COPY_, on, new Tensor[] {self, src}, new Tensor[] {self}, null, null);
            self.storage.bumpVersion();
        } finally {
            CallFrame.close(f);
        }
    }

    static Tensor cat(Tensor[] tensors, int dim) {
        if (tensors.length == 0) {
            throw new IllegalArgumentException("aten::cat: expected at least one tensor");
        }
        boolean grad = Autograd.needs(tensors);
        long seq = grad ? Autograd.nextSequenceNumber() : -1;
        CallFrame f = CallFrame.open(CAT);
        if (f != null) {
            f.tensors(tensors).ints().autograd(seq, -1).begin();
        }
        try {
            Tensor first = tensors[0];
            Device device = Exec.device(CAT.name(), tensors);
            int d = Shapes.dim(CAT.name(), dim, first.dim());
            int[] sizes = first.sizes.clone();
            sizes[d] = 0;
            for (Tensor t : tensors) {
                boolean fits = t.dim() == first.dim() && t.dtype() == first.dtype();
                for (int i = 0; fits && i < t.dim(); i++) {
                    fits = i == d || t.sizes[i] == first.sizes[i];
                }
                if (!fits) {
                    throw new IllegalArgumentException("aten::cat: " + Exec.describe(t) + " does not match "
                            + Exec.describe(first) + " outside dimension " + dim);
                }
                sizes[d] += t.sizes[d];
            }
            Tensor out = Exec.empty(device, first.dtype(), sizes);
            Exec.run(CAT, device, tensors.clone(), new Tensor[] {out}, null, new long[][] {{d}});
            if (grad) {
                int[] lengths = new int[tensors.length];
                for (int i = 0; i < tensors.length; i++) {
                    lengths[i] = tensors[i].sizes[d];
                }
                Autograd.record(out, seq, "CatBackward0", g -> {
                    Tensor[] parts = new Tensor[lengths.length];
                    for (int i = 0, at = 0; i < lengths.length; at += lengths[i++]) {
                        parts[i] = slice(g, d, at, at + lengths[i]);
                    }
                    return parts;
                }, tensors);
            }
            return out;
        } finally {
            CallFrame.close(f);
        }
    }

    static Tensor indexSelect(Tensor t, int dim, Tensor index) {
        boolean grad = Autograd.needs(t);
        long seq = grad ? Autograd.nextSequenceNumber() : -1;
        CallFrame f = CallFrame.begin(INDEX_SELECT, seq, 2, t, index, null, 0, 1);
        try {
            Device device = Exec.device(INDEX_SELECT.name(), t, index);
            if (t.dim() == 0) {
                throw new IllegalArgumentException("aten::index_select: cannot index a 0-d tensor");
            }
            int d = Shapes.dim(INDEX_SELECT.name(), dim, t.dim());
            if (index.dtype() != DType.INT64 || index.dim() > 1) {
                throw new IllegalArgumentException("aten::index_select: the index must be a 1-d long tensor, not "
                        + Exec.describe(index));
            }
            int[] sizes = t.sizes.clone();
            sizes[d] = index.numel();
            Tensor out = Exec.empty(device, t.dtype(), sizes);
            Exec.run(INDEX_SELECT, device, new Tensor[] {t, index}, new Tensor[] {out}, null, new long[][] {{d}});
            if (grad) {
                int[] full = t.sizes;
                Autograd.Saved si = new Autograd.Saved(index);
                Autograd.record(out, seq, "IndexSelectBackward0", g -> new Tensor[] {
                    indexAdd(Creation.zeros(g.device(), DType.FLOAT32, full), d, si.get("IndexSelectBackward0"),
                            g)}, t);
            }
            return out;
        } finally {
            CallFrame.close(f);
        }
    }

    /** In place: adds {@code source}'s slices into {@code self} at {@code index} along {@code dim}. */
    static Tensor indexAdd(Tensor self, int dim, Tensor index, Tensor source) {
        CallFrame f = CallFrame.begin(INDEX_ADD_, -1, 3, self, index, source, 1, 1);
        try {
            Device device = Exec.device(INDEX_ADD_.name(), self, index, source);
            Exec.requireWritable(INDEX_ADD_.name(), self);
            if (self.dim() == 0 || index.dtype() != DType.INT64 || index.dim() > 1 || source.dim() != self.dim()
                    || source.sizes[dim] != index.numel()) {
                throw new IllegalArgumentException("aten::index_add_: index " + Exec.describe(index)
                        + " and source " + Exec.describe(source) + " do not fit " + Exec.describe(self));
            }
            Exec.run(INDEX_ADD_, device, new Tensor[] {self, index, source}, new Tensor[] {self},
                    new double[] {1}, new long[][] {{dim}});
            self.storage.bumpVersion();
            return self;
        } finally {
            CallFrame.close(f);
        }
    }
}
