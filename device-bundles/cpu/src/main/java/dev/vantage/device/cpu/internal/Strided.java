package dev.vantage.device.cpu.internal;

import java.util.Arrays;

import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.KernelOps;
import dev.vantage.tensor.spi.Storage;

/**
 * Walks several strided operands of one shape together, one run of the innermost dimension at a time, as torch's
 * {@code TensorIterator} does. Broadcast dimensions get stride 0; dimensions of size 1 are dropped, and neighbours
 * that every operand lays out contiguously are merged, so a dense walk is a single run and a transposed one a run
 * per row. Immutable once built; every walk keeps its cursor in arrays of its own, so one instance may serve
 * several threads. Also holds the small layout helpers the kernels share.
 */
final class Strided {

    /** The body of a walk: {@code n} elements starting at {@code at[k]} in operand k; do not modify {@code at}. */
    @FunctionalInterface
    interface Run {
        void run(int[] at, int n);
    }

    /** The body of a per-element walk; {@code at} holds each operand's offset and is reused between calls. */
    @FunctionalInterface
    interface Element {
        void accept(int[] at);
    }

    private final int[] sizes;       // coalesced, outermost first, never empty
    private final int[][] strides;   // [operand][dimension]
    private final int[] offsets;
    private final int count;

    private Strided(int[] sizes, int[][] strides, int[] offsets) {
        this.offsets = offsets;
        int rank = sizes.length;
        int operands = strides.length;
        int[] s = new int[Math.max(rank, 1)];
        int[][] st = new int[operands][s.length];
        int r = 0;
        int n = 1;
        for (int d = 0; d < rank; d++) {
            n *= sizes[d];
            if (sizes[d] == 1) {
                continue;
            }
            boolean merge = r > 0;
            for (int k = 0; merge && k < operands; k++) {
                merge = st[k][r - 1] == strides[k][d] * sizes[d];
            }
            if (merge) {
                s[r - 1] *= sizes[d];
                for (int k = 0; k < operands; k++) {
                    st[k][r - 1] = strides[k][d];
                }
            } else {
                s[r] = sizes[d];
                for (int k = 0; k < operands; k++) {
                    st[k][r] = strides[k][d];
                }
                r++;
            }
        }
        if (r == 0) {
            s[0] = 1;
            r = 1;
        }
        this.count = n;
        this.sizes = Arrays.copyOf(s, r);
        this.strides = new int[operands][];
        for (int k = 0; k < operands; k++) {
            this.strides[k] = Arrays.copyOf(st[k], r);
        }
    }

    /** A walk over explicit layouts: {@code strides[k]} and {@code offsets[k]} describe operand k over sizes. */
    static Strided over(int[] sizes, int[][] strides, int[] offsets) {
        return new Strided(sizes, strides, offsets);
    }

    /**
     * A walk over {@code sizes} with each tensor broadcast to it.
     *
     * @throws IllegalArgumentException if a tensor does not broadcast to the sizes; the message names the op
     */
    static Strided of(String op, int[] sizes, Tensor... operands) {
        int[][] strides = new int[operands.length][];
        int[] offsets = new int[operands.length];
        for (int k = 0; k < operands.length; k++) {
            strides[k] = broadcastStrides(op, operands[k], sizes);
            offsets[k] = operands[k].storageOffset();
        }
        return new Strided(sizes, strides, offsets);
    }

    /** The strides that read {@code t} broadcast to {@code sizes}: right-aligned, 0 where it repeats. */
    static int[] broadcastStrides(String op, Tensor t, int[] sizes) {
        int[] own = t.sizes();
        int[] ownStrides = t.strides();
        int lead = sizes.length - own.length;
        if (lead < 0) {
            throw notBroadcastable(op, t, sizes);
        }
        int[] s = new int[sizes.length];
        for (int d = lead; d < sizes.length; d++) {
            int size = own[d - lead];
            if (size == sizes[d]) {
                s[d] = ownStrides[d - lead];
            } else if (size != 1) {
                throw notBroadcastable(op, t, sizes);
            }
        }
        return s;
    }

    private static IllegalArgumentException notBroadcastable(String op, Tensor t, int[] sizes) {
        return new IllegalArgumentException(op + ": " + describe(t) + " does not broadcast to "
                + Arrays.toString(sizes));
    }

    /** Returns operand k's stride within a run. */
    int step(int operand) {
        return strides[operand][sizes.length - 1];
    }

    /** Walks every run from the operands' own offsets. */
    void forEach(Run run) {
        forEachFrom(offsets, run);
    }

    /** Walks every run with operand k starting at {@code start[k]} instead of its own offset. */
    void forEachFrom(int[] start, Run run) {
        if (count == 0) {
            return;
        }
        int rank = sizes.length;
        int inner = sizes[rank - 1];
        int operands = strides.length;
        int[] at = start.clone();
        int[] index = new int[rank];
        int runs = count / inner;
        for (int r = 0; r < runs; r++) {
            run.run(at, inner);
            for (int d = rank - 2; d >= 0; d--) {
                if (++index[d] < sizes[d]) {
                    for (int k = 0; k < operands; k++) {
                        at[k] += strides[k][d];
                    }
                    break;
                }
                index[d] = 0;
                for (int k = 0; k < operands; k++) {
                    at[k] -= strides[k][d] * (sizes[d] - 1);
                }
            }
        }
    }

    /** Walks every element, in row-major order of the sizes. */
    void forEachElement(Element element) {
        int operands = strides.length;
        int[] cursor = new int[operands];
        int[] steps = new int[operands];
        for (int k = 0; k < operands; k++) {
            steps[k] = step(k);
        }
        forEach((at, n) -> {
            System.arraycopy(at, 0, cursor, 0, operands);
            for (int i = 0; i < n; i++) {
                element.accept(cursor);
                for (int k = 0; k < operands; k++) {
                    cursor[k] += steps[k];
                }
            }
        });
    }

    // ---------------------------------------------------------------- layout helpers

    /** True when the tensor's elements are exactly its storage, row-major from index 0. */
    static boolean dense(Tensor t) {
        return t.storageOffset() == 0 && t.isContiguous() && t.storage().size() == t.numel();
    }

    /**
     * The float values of a tensor, row-major from index 0: its own array when {@link #dense}, else a packed copy.
     * Read-only use.
     *
     * @throws IllegalArgumentException if the tensor does not hold floats; the message names the op
     */
    static float[] packed(String op, Tensor t) {
        float[] own = floats(op, t);
        return dense(t) ? own : CopyKernels.detached(t).storage().floats();
    }

    /** The int64 values of a tensor, row-major from index 0: its own array when dense, else a copy. Read-only. */
    static long[] packedLongs(String op, Tensor t) {
        requireType(op, t, DType.INT64);
        return (dense(t) ? t : CopyKernels.detached(t)).storage().longs();
    }

    /** The bool values of a tensor, row-major from index 0: its own array when dense, else a copy. Read-only. */
    static boolean[] packedBools(String op, Tensor t) {
        requireType(op, t, DType.BOOL);
        return (dense(t) ? t : CopyKernels.detached(t)).storage().bools();
    }

    /**
     * The array to compute a float output into, row-major from index 0: the output's own when dense, else a
     * scratch array; {@link #store} puts the values in place.
     */
    static float[] target(String op, Tensor out) {
        float[] own = floats(op, out);
        return dense(out) ? own : new float[out.numel()];
    }

    /** As {@link #target}, for an int64 output. */
    static long[] targetLongs(String op, Tensor out) {
        long[] own = longs(op, out);
        return dense(out) ? own : new long[out.numel()];
    }

    /** As {@link #target}, for a bool output. */
    static boolean[] targetBools(String op, Tensor out) {
        requireType(op, out, DType.BOOL);
        return dense(out) ? out.storage().bools() : new boolean[out.numel()];
    }

    /** Writes row-major values (a float, long or boolean array) into {@code out}, unless they are its storage. */
    static void store(Object values, Tensor out) {
        Storage storage;
        if (values instanceof float[] f) {
            storage = f == out.storage().floats() ? null : Storage.wrap(Device.CPU, f);
        } else if (values instanceof long[] l) {
            storage = l == out.storage().longs() ? null : Storage.wrap(Device.CPU, l);
        } else {
            boolean[] b = (boolean[]) values;
            storage = b == out.storage().bools() ? null : Storage.wrap(Device.CPU, b);
        }
        if (storage != null) {
            int[] sizes = out.sizes();
            Tensor src = Tensor.wrap(storage, toLongs(sizes));
            CopyKernels.copyRuns(of(KernelOps.COPY_, sizes, out, src), null, out, src);
        }
    }

    /**
     * An input safe to read while {@code out} is written: itself unless it shares out's storage with another
     * layout (an in-place op whose other operand is a view of self), then a copy.
     */
    static Tensor unaliased(Tensor in, Tensor out) {
        if (in == null || in.storage() != out.storage() || in.storageOffset() == out.storageOffset()
                && Arrays.equals(in.sizes(), out.sizes()) && Arrays.equals(in.strides(), out.strides())) {
            return in;
        }
        return CopyKernels.detached(in);
    }

    /**
     * The float array of a tensor.
     *
     * @throws IllegalArgumentException if it holds another dtype; the message names the op
     */
    static float[] floats(String op, Tensor t) {
        requireType(op, t, DType.FLOAT32);
        return t.storage().floats();
    }

    /**
     * The long array of a tensor.
     *
     * @throws IllegalArgumentException if it holds another dtype; the message names the op
     */
    static long[] longs(String op, Tensor t) {
        requireType(op, t, DType.INT64);
        return t.storage().longs();
    }

    static void requireType(String op, Tensor t, DType dtype) {
        if (t.dtype() != dtype) {
            throw new IllegalArgumentException(op + ": expected a " + dtype.profileName() + " tensor, got "
                    + describe(t));
        }
    }

    /** Checks a tensor's shape, naming the op and both shapes otherwise. */
    static void requireShape(String op, String what, Tensor t, int... sizes) {
        if (!Arrays.equals(t.sizes(), sizes)) {
            throw new IllegalArgumentException(op + ": expected " + what + " of shape " + Arrays.toString(sizes)
                    + ", got " + describe(t));
        }
    }

    static int[] contiguousStrides(int[] sizes) {
        int[] strides = new int[sizes.length];
        int stride = 1;
        for (int i = sizes.length - 1; i >= 0; i--) {
            strides[i] = stride;
            stride *= Math.max(sizes[i], 1);
        }
        return strides;
    }

    static long[] toLongs(int[] sizes) {
        long[] s = new long[sizes.length];
        for (int i = 0; i < s.length; i++) {
            s[i] = sizes[i];
        }
        return s;
    }

    /** Normalises an int argument that is a dimension of a tensor of {@code rank}, naming the op otherwise. */
    static int dim(String op, long dim, int rank) {
        long d = dim < 0 ? dim + rank : dim;
        if (d < 0 || d >= Math.max(rank, 1)) {
            throw new IllegalArgumentException(op + ": dimension " + dim + " is out of range for " + rank
                    + " dimension(s)");
        }
        return (int) d;
    }

    /** Describes a tensor as messages show it: {@code [2, 3] float}. */
    static String describe(Tensor t) {
        return t == null ? "None" : Arrays.toString(t.sizes()) + " " + t.dtype().profileName();
    }
}
