package dev.vantage.tensor.distributed;

import java.nio.ByteBuffer;

import dev.vantage.tensor.DType;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.Storage;

/**
 * The host array a collective works on: a range of a float or int64 storage, read into and written from the ring's
 * little-endian frames. Elements are addressed from 0 to {@link #length()}.
 */
abstract class HostData {

    final int base;
    final int length;

    private HostData(int base, int length) {
        this.base = base;
        this.length = length;
    }

    /** The elements of a contiguous host tensor, in place. */
    static HostData of(Tensor host) {
        Storage s = host.storage();
        return s.dtype() == DType.INT64 ? new Longs(s.longs(), host.storageOffset(), host.numel())
                : new Floats(s.floats(), host.storageOffset(), host.numel());
    }

    /** A new zero-filled array of a dtype. */
    static HostData allocate(DType dtype, int length) {
        return dtype == DType.INT64 ? new Longs(new long[length], 0, length) : new Floats(new float[length], 0, length);
    }

    final int length() {
        return length;
    }

    abstract int itemSize();

    /** Writes elements {@code [from, from + n)} into the buffer. */
    abstract void put(ByteBuffer dst, int from, int n);

    /** Overwrites elements {@code [from, from + n)} from the buffer. */
    abstract void get(ByteBuffer src, int from, int n);

    /** Combines elements {@code [from, from + n)} with the buffer's. */
    abstract void reduce(ByteBuffer src, int from, int n, ReduceOp op);

    /** Divides elements {@code [from, from + n)} by a count, for {@link ReduceOp#AVG}. */
    abstract void divide(int from, int n, int count);

    /** Copies elements {@code [from, from + n)} of another array of the same dtype to {@code [to, to + n)}. */
    abstract void copyFrom(HostData src, int from, int to, int n);

    private static final class Floats extends HostData {
        private final float[] a;

        Floats(float[] a, int base, int length) {
            super(base, length);
            this.a = a;
        }

        @Override
        int itemSize() {
            return 4;
        }

        @Override
        void put(ByteBuffer dst, int from, int n) {
            dst.asFloatBuffer().put(a, base + from, n);
            dst.position(dst.position() + n * 4);
        }

        @Override
        void get(ByteBuffer src, int from, int n) {
            src.asFloatBuffer().get(a, base + from, n);
            src.position(src.position() + n * 4);
        }

        @Override
        void reduce(ByteBuffer src, int from, int n, ReduceOp op) {
            int p = src.position();
            int i = base + from;
            int end = i + n;
            switch (op) {
                case SUM, AVG -> {
                    for (; i < end; i++, p += 4) {
                        a[i] += src.getFloat(p);
                    }
                }
                case MAX -> {
                    for (; i < end; i++, p += 4) {
                        a[i] = Math.max(a[i], src.getFloat(p));
                    }
                }
                case MIN -> {
                    for (; i < end; i++, p += 4) {
                        a[i] = Math.min(a[i], src.getFloat(p));
                    }
                }
            }
            src.position(p);
        }

        @Override
        void divide(int from, int n, int count) {
            for (int i = base + from, end = i + n; i < end; i++) {
                a[i] /= count;
            }
        }

        @Override
        void copyFrom(HostData src, int from, int to, int n) {
            System.arraycopy(((Floats) src).a, src.base + from, a, base + to, n);
        }
    }

    private static final class Longs extends HostData {
        private final long[] a;

        Longs(long[] a, int base, int length) {
            super(base, length);
            this.a = a;
        }

        @Override
        int itemSize() {
            return 8;
        }

        @Override
        void put(ByteBuffer dst, int from, int n) {
            dst.asLongBuffer().put(a, base + from, n);
            dst.position(dst.position() + n * 8);
        }

        @Override
        void get(ByteBuffer src, int from, int n) {
            src.asLongBuffer().get(a, base + from, n);
            src.position(src.position() + n * 8);
        }

        @Override
        void reduce(ByteBuffer src, int from, int n, ReduceOp op) {
            int p = src.position();
            for (int i = base + from, end = i + n; i < end; i++, p += 8) {
                long v = src.getLong(p);
                a[i] = switch (op) {
                    case SUM, AVG -> a[i] + v;
                    case MAX -> Math.max(a[i], v);
                    case MIN -> Math.min(a[i], v);
                };
            }
            src.position(p);
        }

        @Override
        void divide(int from, int n, int count) {
            throw new IllegalStateException("AVG is for float tensors");
        }

        @Override
        void copyFrom(HostData src, int from, int to, int n) {
            System.arraycopy(((Longs) src).a, src.base + from, a, base + to, n);
        }
    }
}
