package dev.vantage.device.cpu.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.fail;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

import org.junit.After;
import org.junit.Before;

import dev.vantage.tensor.DType;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.Backends;
import dev.vantage.tensor.spi.Kernel;
import dev.vantage.tensor.spi.KernelCall;

/**
 * What the kernel tests share: an activated {@link CpuBackend} installed in the dispatcher (so that the runtime's
 * views and {@code Tensor.zeros} work), its kernels by name, and readers that index a tensor through its own
 * sizes, strides and offset, independently of the code under test.
 */
abstract class KernelTestSupport {

    protected CpuBackend backend;
    protected final Map<String, Kernel> kernels = new HashMap<>();

    @Before
    public void installBackend() {
        backend = CpuRuntime.install();
        kernels.putAll(Backends.kernels(backend));
    }

    @After
    public void uninstallBackend() {
        CpuRuntime.uninstall(backend);
    }

    /** Runs a kernel directly. */
    protected void call(String op, Tensor[] in, Tensor[] out, double[] scalars, long[][] ints) {
        Kernel kernel = kernels.get(op);
        assertNotNull(op + " is registered", kernel);
        kernel.run(new KernelCall(op, in, out, scalars, ints));
    }

    /** Runs a kernel with one float output of the given shape, allocated zero-filled, and returns it. */
    protected Tensor run(String op, Tensor[] in, double[] scalars, long[][] ints, long... outShape) {
        Tensor out = Tensor.zeros(outShape);
        call(op, in, new Tensor[] {out}, scalars, ints);
        return out;
    }

    static float[] random(long seed, int n, double low, double high) {
        SplittableRandom r = new SplittableRandom(seed);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) (low + (high - low) * r.nextDouble());
        }
        return v;
    }

    /** A contiguous float tensor of values uniform in [-2, 2). */
    static Tensor rand(long seed, long... shape) {
        int n = 1;
        for (long s : shape) {
            n *= (int) s;
        }
        return Tensor.of(random(seed, n, -2, 2), shape);
    }

    /** The multi-index of row-major position {@code flat} in {@code sizes}. */
    static int[] index(int[] sizes, int flat) {
        int[] idx = new int[sizes.length];
        for (int d = sizes.length - 1; d >= 0; d--) {
            idx[d] = flat % sizes[d];
            flat /= sizes[d];
        }
        return idx;
    }

    /** Storage position of an element, from the tensor's strides; broadcasts right-aligned size-1 dims. */
    static int position(Tensor t, int[] idx) {
        int[] sizes = t.sizes();
        int[] strides = t.strides();
        int lead = idx.length - sizes.length;
        int p = t.storageOffset();
        for (int d = 0; d < sizes.length; d++) {
            p += (sizes[d] == 1 ? 0 : idx[lead + d]) * strides[d];
        }
        return p;
    }

    /** Element {@code idx} of a float tensor, broadcasting. */
    static float get(Tensor t, int... idx) {
        return t.storage().floats()[position(t, idx)];
    }

    static long getLong(Tensor t, int... idx) {
        return t.storage().longs()[position(t, idx)];
    }

    static boolean getBool(Tensor t, int... idx) {
        return t.storage().bools()[position(t, idx)];
    }

    /** The elements of a float tensor in row-major order, read through its strides. */
    static float[] read(Tensor t) {
        int[] sizes = t.sizes();
        float[] v = new float[t.numel()];
        for (int i = 0; i < v.length; i++) {
            v[i] = get(t, index(sizes, i));
        }
        return v;
    }

    /** Asserts |expected - actual| <= abs + rel * |expected| element by element, NaN equal to NaN. */
    static void assertClose(String what, double[] expected, float[] actual, double rel, double abs) {
        assertEquals(what + ": length", expected.length, actual.length);
        for (int i = 0; i < expected.length; i++) {
            double e = expected[i];
            double a = actual[i];
            if (Double.isNaN(e) && Double.isNaN(a) || e == a) {
                continue;
            }
            if (!(Math.abs(e - a) <= abs + rel * Math.abs(e))) {
                fail(what + "[" + i + "]: expected " + e + " but was " + a);
            }
        }
    }

    static void assertClose(String what, float[] expected, float[] actual, double rel, double abs) {
        double[] e = new double[expected.length];
        for (int i = 0; i < e.length; i++) {
            e[i] = expected[i];
        }
        assertClose(what, e, actual, rel, abs);
    }

    static Tensor zeros(DType dtype, long... shape) {
        return Tensor.zeros(dev.vantage.tensor.Device.CPU, dtype, shape);
    }

    static long[][] ints(long[]... lists) {
        return lists;
    }

    static long[] list(long... values) {
        return values;
    }
}
