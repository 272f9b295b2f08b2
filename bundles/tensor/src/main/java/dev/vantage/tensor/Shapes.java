package dev.vantage.tensor;

import java.util.Arrays;

/** Shape arithmetic: checking, strides, broadcasting and dimension indices. */
final class Shapes {

    private Shapes() {
    }

    /** Converts a user's shape, checking that sizes are not negative and the element count fits an array. */
    static int[] checked(long[] shape) {
        int[] s = new int[shape.length];
        long n = 1;
        for (int i = 0; i < shape.length; i++) {
            if (shape[i] < 0) {
                throw new IllegalArgumentException("negative size in shape " + Arrays.toString(shape));
            }
            n *= shape[i];
            if (n > Integer.MAX_VALUE - 8) {
                throw new IllegalArgumentException("shape " + Arrays.toString(shape) + " is too large");
            }
            s[i] = (int) shape[i];
        }
        return s;
    }

    /** The sizes as the {@code long[]} shapes the public API takes. */
    static long[] toLongs(int[] sizes) {
        long[] s = new long[sizes.length];
        for (int i = 0; i < s.length; i++) {
            s[i] = sizes[i];
        }
        return s;
    }

    static int numel(int[] sizes) {
        int n = 1;
        for (int s : sizes) {
            n *= s;
        }
        return n;
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

    /** The shape two shapes broadcast to, or an exception naming the op, both shapes and the device. */
    static int[] broadcast(String op, int[] x, int[] y, Device device) {
        int rank = Math.max(x.length, y.length);
        int[] out = new int[rank];
        for (int i = 0; i < rank; i++) {
            int sx = i < rank - x.length ? 1 : x[i - (rank - x.length)];
            int sy = i < rank - y.length ? 1 : y[i - (rank - y.length)];
            if (sx != sy && sx != 1 && sy != 1) {
                throw new IllegalArgumentException(op + ": shapes " + Arrays.toString(x) + " and "
                        + Arrays.toString(y) + " cannot be broadcast together (on " + device + ")");
            }
            out[i] = sx == 1 ? sy : sx;
        }
        return out;
    }

    /** Normalises a possibly negative dimension index, or throws naming the op and the shape. */
    static int dim(String op, int dim, int rank) {
        int d = dim < 0 ? dim + rank : dim;
        if (d < 0 || d >= Math.max(rank, 1)) {
            throw new IndexOutOfBoundsException(op + ": dimension " + dim + " is out of range for a tensor of "
                    + rank + " dimension(s)");
        }
        return d;
    }

    static String str(Tensor t) {
        return Arrays.toString(t.sizes);
    }
}
