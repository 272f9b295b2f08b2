package dev.vantage.tensor;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import dev.vantage.profiler.memory.MemoryEvents;
import dev.vantage.tensor.spi.Backend;
import dev.vantage.tensor.spi.KernelCall;
import dev.vantage.tensor.spi.KernelOps;
import dev.vantage.tensor.spi.KernelRegistry;
import dev.vantage.tensor.spi.Storage;

/**
 * A backend for runtime tests: naive kernels for a few ops, reading inputs element by element through their
 * strides, so views are exercised. As an accelerator ({@code npu}) it registers only copy_ and mm, so every other
 * op must take the CPU fallback; it logs the kernels it ran.
 */
final class FakeBackend implements Backend {

    final String type;
    final DispatchKey key;
    final List<String> ran = new ArrayList<>();
    /** The addresses freed, in order. */
    final List<Long> frees = java.util.Collections.synchronizedList(new ArrayList<>());
    /** Addresses are unique across every fake backend of the JVM, so a late free of another test's storage, which the
     *  collector may run at any time, never looks like one of this backend's. */
    private static final AtomicLong NEXT_ADDRESS = new AtomicLong(0x1000);
    private final AtomicLong allocated = new AtomicLong();

    FakeBackend(String type, DispatchKey key) {
        this.type = type;
        this.key = key;
    }

    @Override
    public String deviceType() {
        return type;
    }

    @Override
    public DispatchKey dispatchKey() {
        return key;
    }

    @Override
    public boolean emulated() {
        return true;
    }

    /**
     * Counts each allocation and free and reports them to a memory profile, as a device allocator does; the storage
     * carries the block's address and gives it back when the runtime releases it (or the collector finds it).
     */
    @Override
    public Storage allocate(Device device, DType dtype, int size) {
        long bytes = (long) size * dtype.itemSize();
        long address = NEXT_ADDRESS.getAndAdd(Math.max(bytes, 1));
        int index = type.equals("cpu") ? -1 : device.index();
        Storage s = Storage.create(device, dtype, size, null, address, () -> {
            synchronized (this) {
                long total = allocated.addAndGet(-bytes);
                frees.add(address);
                MemoryEvents.allocated(type, index, address, -bytes, total, total);
            }
        });
        synchronized (this) {
            long total = allocated.addAndGet(bytes);
            MemoryEvents.allocated(type, index, address, bytes, total, total);
        }
        return s;
    }

    /** Returns the bytes allocated and not freed. */
    long liveBytes() {
        return allocated.get();
    }

    /** The value of the element at a row-major position of a tensor's logical shape, through its strides. */
    static double at(Tensor t, int flat, int[] outSizes) {
        int[] sizes = t.sizes();
        int[] strides = t.strides();
        int offset = t.storageOffset();
        int rest = flat;
        for (int d = outSizes.length - 1; d >= 0; d--) {
            int i = rest % outSizes[d];
            rest /= outSizes[d];
            int td = d - (outSizes.length - sizes.length);
            if (td >= 0 && sizes[td] != 1) {
                offset += i * strides[td];
            }
        }
        return switch (t.dtype()) {
            case FLOAT32 -> t.storage().floats()[offset];
            case INT64 -> t.storage().longs()[offset];
            case BOOL -> t.storage().bools()[offset] ? 1 : 0;
        };
    }

    static void set(Tensor t, int flat, double v) {
        int[] sizes = t.sizes();
        int[] strides = t.strides();
        int offset = t.storageOffset();
        int rest = flat;
        for (int d = sizes.length - 1; d >= 0; d--) {
            offset += rest % sizes[d] * strides[d];
            rest /= sizes[d];
        }
        switch (t.dtype()) {
            case FLOAT32 -> t.storage().floats()[offset] = (float) v;
            case INT64 -> t.storage().longs()[offset] = (long) v;
            case BOOL -> t.storage().bools()[offset] = v != 0;
        }
    }

    private interface Binary {
        double apply(double a, double b);
    }

    private void binary(KernelCall c, Binary f) {
        ran.add(c.op());
        Tensor out = c.output(0);
        for (int i = 0; i < out.numel(); i++) {
            double b = c.input(1) == null ? c.scalar(0) : at(c.input(1), i, out.sizes());
            set(out, i, f.apply(at(c.input(0), i, out.sizes()), b));
        }
    }

    @Override
    public void registerKernels(KernelRegistry registry) {
        registry.register(KernelOps.COPY_, c -> {
            ran.add(c.op());
            for (int i = 0; i < c.output(0).numel(); i++) {
                set(c.output(0), i, at(c.input(1), i, c.output(0).sizes()));
            }
        });
        registry.register(KernelOps.MM, c -> {
            ran.add(c.op());
            Tensor a = c.input(0);
            Tensor b = c.input(1);
            int m = a.size(0);
            int k = a.size(1);
            int n = b.size(1);
            for (int i = 0; i < m; i++) {
                for (int j = 0; j < n; j++) {
                    double s = 0;
                    for (int x = 0; x < k; x++) {
                        s += at(a, i * k + x, a.sizes()) * at(b, x * n + j, b.sizes());
                    }
                    set(c.output(0), i * n + j, s);
                }
            }
        });
        if (key != DispatchKey.CPU) {
            return;
        }
        registry.register(KernelOps.ADD, c -> binary(c, (a, b) -> a + (c.input(1) == null ? 1 : c.scalar(1)) * b));
        registry.register(KernelOps.MUL, c -> binary(c, (a, b) -> a * b));
        registry.register(KernelOps.FILL_, c -> {
            ran.add(c.op());
            for (int i = 0; i < c.output(0).numel(); i++) {
                set(c.output(0), i, c.scalar(0));
            }
        });
        registry.register(KernelOps.SUM, c -> {
            ran.add(c.op());
            Tensor in = c.input(0);
            if (c.output(0).numel() != 1) {
                throw new UnsupportedOperationException("the fake sums everything only");
            }
            double s = 0;
            for (int i = 0; i < in.numel(); i++) {
                s += at(in, i, in.sizes());
            }
            set(c.output(0), 0, s);
        });
    }
}
