package dev.vantage.device.cpu.internal;

import java.util.Arrays;

import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.KernelCall;
import dev.vantage.tensor.spi.KernelOps;
import dev.vantage.tensor.spi.KernelRegistry;

/**
 * Kernels that move whole slices: {@code cat} (any dtype), {@code index_select} (any dtype) and
 * {@code index_add_} (float). One {@link Strided} walk describes a slice and is replayed from each slice's start,
 * so a row of a contiguous tensor is a single array copy. Indices are bounds-checked. Stateless.
 */
final class IndexKernels {

    private IndexKernels() {
    }

    static void register(KernelRegistry r) {
        r.register(KernelOps.CAT, IndexKernels::cat);
        r.register(KernelOps.INDEX_SELECT, IndexKernels::indexSelect);
        r.register(KernelOps.INDEX_ADD_, IndexKernels::indexAdd);
    }

    private static void cat(KernelCall c) {
        String op = c.op();
        Tensor out = c.output(0);
        int rank = out.dim();
        int d = Strided.dim(op, c.integer(0), rank);
        int[] expected = out.sizes();
        int total = 0;
        for (int i = 0; i < c.inputCount(); i++) {
            Tensor t = c.input(i);
            expected[d] = t.size(d);
            if (t.dtype() != out.dtype() || !Arrays.equals(t.sizes(), expected)) {
                throw new IllegalArgumentException(op + ": input " + i + " " + Strided.describe(t)
                        + " does not fit output " + Strided.describe(out) + " outside dimension " + d);
            }
            total += t.size(d);
        }
        if (total != out.size(d)) {
            throw new IllegalArgumentException(op + ": the inputs add up to " + total + " along dimension " + d
                    + ", not the output's " + out.size(d));
        }
        int[] outStrides = out.strides();
        for (int i = 0, at = 0; i < c.inputCount(); i++) {
            Tensor t = c.input(i);
            Strided s = Strided.over(t.sizes(), new int[][] {outStrides, t.strides()},
                    new int[] {out.storageOffset() + at * outStrides[d], t.storageOffset()});
            CopyKernels.copyRuns(s, null, out, t);
            at += t.size(d);
        }
    }

    /** Checks an index against the size of the dimension it indexes, naming the op otherwise. */
    private static int checked(String op, long index, int size, int dim) {
        if (index < 0 || index >= size) {
            throw new IndexOutOfBoundsException(op + ": index " + index + " is out of bounds for dimension " + dim
                    + " with size " + size);
        }
        return (int) index;
    }

    private static long[] indices(KernelCall c, Tensor index) {
        if (index.dim() > 1) {
            throw new IllegalArgumentException(c.op() + ": the index must be 1-d, not " + Strided.describe(index));
        }
        return Strided.packedLongs(c.op(), index);
    }

    private static void indexSelect(KernelCall c) {
        String op = c.op();
        Tensor self = c.input(0);
        Tensor out = c.output(0);
        long[] index = indices(c, c.input(1));
        int d = Strided.dim(op, c.integer(0), self.dim());
        int[] sizes = self.sizes();
        int size = sizes[d];
        sizes[d] = index.length;
        if (out.dtype() != self.dtype()) {
            throw new IllegalArgumentException(op + ": output " + Strided.describe(out) + " does not match "
                    + Strided.describe(self));
        }
        Strided.requireShape(op, "output", out, sizes);
        sizes[d] = 1;
        Strided slice = Strided.over(sizes, new int[][] {out.strides(), self.strides()}, new int[2]);
        int[] start = new int[2];
        for (int k = 0; k < index.length; k++) {
            int i = checked(op, index[k], size, d);
            start[0] = out.storageOffset() + k * out.stride(d);
            start[1] = self.storageOffset() + i * self.stride(d);
            CopyKernels.copyRuns(slice, start, out, self);
        }
    }

    /**
     * {@code self[.., index[k], ..] += alpha * source[.., k, ..]}, in index order, so repeats add up. Every index
     * is checked before self changes.
     */
    private static void indexAdd(KernelCall c) {
        String op = c.op();
        Tensor self = c.output(0);
        long[] index = indices(c, c.input(1));
        Tensor source = Strided.unaliased(c.input(2), self);
        float alpha = (float) c.scalar(0);
        int d = Strided.dim(op, c.integer(0), self.dim());
        int[] sizes = self.sizes();
        int size = sizes[d];
        sizes[d] = index.length;
        Strided.requireShape(op, "source", source, sizes);
        float[] o = Strided.floats(op, self);
        float[] x = Strided.floats(op, source);
        sizes[d] = 1;
        Strided slice = Strided.over(sizes, new int[][] {self.strides(), source.strides()}, new int[2]);
        int os = slice.step(0);
        int xs = slice.step(1);
        Strided.Run add = (at, n) -> {
            for (int i = 0, oi = at[0], xi = at[1]; i < n; i++, oi += os, xi += xs) {
                o[oi] += alpha * x[xi];
            }
        };
        for (long i : index) {
            checked(op, i, size, d);
        }
        int[] start = new int[2];
        for (int k = 0; k < index.length; k++) {
            int i = (int) index[k];
            start[0] = self.storageOffset() + i * self.stride(d);
            start[1] = source.storageOffset() + k * source.stride(d);
            slice.forEachFrom(start, add);
        }
    }
}
