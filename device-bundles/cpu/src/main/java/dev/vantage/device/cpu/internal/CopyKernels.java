package dev.vantage.device.cpu.internal;

import java.util.Arrays;

import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.KernelCall;
import dev.vantage.tensor.spi.KernelOps;
import dev.vantage.tensor.spi.KernelRegistry;
import dev.vantage.tensor.spi.Storage;

/**
 * Kernels that write values without arithmetic, for every dtype: {@code fill_}, {@code zero_} and {@code copy_}
 * (broadcasting, converting float, long and bool as torch casts: float to long truncates, anything to bool is
 * {@code != 0}). The typed run copy here also serves {@code cat} and {@code index_select}. Stateless.
 */
final class CopyKernels {

    private CopyKernels() {
    }

    static void register(KernelRegistry r) {
        r.register(KernelOps.FILL_, c -> fill(c.output(0), c.scalar(0)));
        r.register(KernelOps.ZERO_, c -> fill(c.output(0), 0));
        r.register(KernelOps.COPY_, CopyKernels::copy);
    }

    /** Sets every element of a tensor, which may be a strided view, to a value converted to its dtype. */
    static void fill(Tensor self, double value) {
        Strided s = Strided.of(KernelOps.FILL_, self.sizes(), self);
        int step = s.step(0);
        switch (self.dtype()) {
            case FLOAT32 -> {
                float[] a = self.storage().floats();
                float v = (float) value;
                s.forEach((at, n) -> {
                    if (step == 1) {
                        Arrays.fill(a, at[0], at[0] + n, v);
                    } else {
                        for (int i = 0, o = at[0]; i < n; i++, o += step) {
                            a[o] = v;
                        }
                    }
                });
            }
            case INT64 -> {
                long[] a = self.storage().longs();
                long v = (long) value;
                s.forEach((at, n) -> {
                    for (int i = 0, o = at[0]; i < n; i++, o += step) {
                        a[o] = v;
                    }
                });
            }
            case BOOL -> {
                boolean[] a = self.storage().bools();
                boolean v = value != 0;
                s.forEach((at, n) -> {
                    for (int i = 0, o = at[0]; i < n; i++, o += step) {
                        a[o] = v;
                    }
                });
            }
            default -> throw new IllegalArgumentException(KernelOps.FILL_ + ": unsupported dtype " + self.dtype());
        }
    }

    private static void copy(KernelCall c) {
        Tensor dst = c.output(0);
        Tensor src = c.input(1);
        if (src.storage() == dst.storage()) {
            if (src.storageOffset() == dst.storageOffset() && Arrays.equals(src.sizes(), dst.sizes())
                    && Arrays.equals(src.strides(), dst.strides())) {
                return;   // copying a tensor onto itself
            }
            src = detached(src);   // an overlapping view: read from a copy, not from what is being written
        }
        Strided s = Strided.of(c.op(), dst.sizes(), dst, src);
        copyRuns(s, null, dst, src);
    }

    /** A contiguous host copy of a tensor of any dtype. */
    static Tensor detached(Tensor t) {
        int[] sizes = t.sizes();
        Tensor copy = Tensor.wrap(Storage.create(Device.CPU, t.dtype(), t.numel()), Strided.toLongs(sizes));
        copyRuns(Strided.of(KernelOps.COPY_, sizes, copy, t), null, copy, t);
        return copy;
    }

    /**
     * Copies along a walk whose operand 0 is {@code dst} and operand 1 is {@code src}, converting the dtype.
     *
     * @param start where each operand starts, or null for the walk's own offsets
     */
    static void copyRuns(Strided s, int[] start, Tensor dst, Tensor src) {
        Object to = array(dst);
        Object from = array(src);
        DType dt = dst.dtype();
        DType st = src.dtype();
        int ds = s.step(0);
        int ss = s.step(1);
        Strided.Run run = (at, n) -> copyRun(to, dt, at[0], ds, from, st, at[1], ss, n);
        if (start == null) {
            s.forEach(run);
        } else {
            s.forEachFrom(start, run);
        }
    }

    private static Object array(Tensor t) {
        return switch (t.dtype()) {
            case FLOAT32 -> t.storage().floats();
            case INT64 -> t.storage().longs();
            case BOOL -> t.storage().bools();
        };
    }

    private static void copyRun(Object to, DType dt, int di, int ds, Object from, DType st, int si, int ss, int n) {
        if (dt == st) {
            copySame(to, di, ds, from, si, ss, n);
            return;
        }
        switch (dt) {
            case FLOAT32 -> {
                float[] d = (float[]) to;
                if (st == DType.INT64) {
                    long[] x = (long[]) from;
                    for (int i = 0; i < n; i++, di += ds, si += ss) {
                        d[di] = x[si];
                    }
                } else {
                    boolean[] x = (boolean[]) from;
                    for (int i = 0; i < n; i++, di += ds, si += ss) {
                        d[di] = x[si] ? 1f : 0f;
                    }
                }
            }
            case INT64 -> {
                long[] d = (long[]) to;
                if (st == DType.FLOAT32) {
                    float[] x = (float[]) from;
                    for (int i = 0; i < n; i++, di += ds, si += ss) {
                        d[di] = (long) x[si];
                    }
                } else {
                    boolean[] x = (boolean[]) from;
                    for (int i = 0; i < n; i++, di += ds, si += ss) {
                        d[di] = x[si] ? 1L : 0L;
                    }
                }
            }
            case BOOL -> {
                boolean[] d = (boolean[]) to;
                if (st == DType.FLOAT32) {
                    float[] x = (float[]) from;
                    for (int i = 0; i < n; i++, di += ds, si += ss) {
                        d[di] = x[si] != 0;
                    }
                } else {
                    long[] x = (long[]) from;
                    for (int i = 0; i < n; i++, di += ds, si += ss) {
                        d[di] = x[si] != 0;
                    }
                }
            }
            default -> throw new IllegalArgumentException(KernelOps.COPY_ + ": unsupported dtype " + dt);
        }
    }

    /** Copies a run between two arrays of one element type: one array copy when both are contiguous. */
    private static void copySame(Object to, int di, int ds, Object from, int si, int ss, int n) {
        if (ds == 1 && ss == 1) {
            System.arraycopy(from, si, to, di, n);
        } else if (to instanceof float[] d) {
            float[] x = (float[]) from;
            for (int i = 0; i < n; i++, di += ds, si += ss) {
                d[di] = x[si];
            }
        } else if (to instanceof long[] d) {
            long[] x = (long[]) from;
            for (int i = 0; i < n; i++, di += ds, si += ss) {
                d[di] = x[si];
            }
        } else {
            boolean[] d = (boolean[]) to;
            boolean[] x = (boolean[]) from;
            for (int i = 0; i < n; i++, di += ds, si += ss) {
                d[di] = x[si];
            }
        }
    }
}
