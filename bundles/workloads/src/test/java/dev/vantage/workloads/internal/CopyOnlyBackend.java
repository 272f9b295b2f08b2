package dev.vantage.workloads.internal;

import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.DispatchKey;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.Backend;
import dev.vantage.tensor.spi.KernelOps;
import dev.vantage.tensor.spi.KernelRegistry;
import dev.vantage.tensor.spi.Storage;

/**
 * An accelerator backend with one kernel, {@code copy_}: every other op takes the runtime's CPU fallback. Enough
 * to run a workload "on" another device and see that its parameters really live and change there.
 */
final class CopyOnlyBackend implements Backend {

    @Override
    public String deviceType() {
        return "npu";
    }

    @Override
    public DispatchKey dispatchKey() {
        return DispatchKey.NPU;
    }

    @Override
    public boolean emulated() {
        return true;
    }

    @Override
    public Storage allocate(Device device, DType dtype, int size) {
        return Storage.create(device, dtype, size);
    }

    @Override
    public void registerKernels(KernelRegistry registry) {
        registry.register(KernelOps.COPY_, call -> {
            Tensor dst = call.output(0);
            Tensor src = call.input(1);
            for (int i = 0; i < dst.numel(); i++) {
                write(dst, offset(dst, i, dst.sizes()), read(src, offset(src, i, dst.sizes())));
            }
        });
    }

    /** The storage position of row-major element {@code flat} of {@code shape}, in {@code t} broadcast to it. */
    private static int offset(Tensor t, int flat, int[] shape) {
        int[] sizes = t.sizes();
        int[] strides = t.strides();
        int at = t.storageOffset();
        int rest = flat;
        for (int d = shape.length - 1; d >= 0; d--) {
            int i = rest % shape[d];
            rest /= shape[d];
            int td = d - (shape.length - sizes.length);
            if (td >= 0 && sizes[td] != 1) {
                at += i * strides[td];
            }
        }
        return at;
    }

    private static double read(Tensor t, int at) {
        return switch (t.dtype()) {
            case FLOAT32 -> t.storage().floats()[at];
            case INT64 -> t.storage().longs()[at];
            case BOOL -> t.storage().bools()[at] ? 1 : 0;
        };
    }

    private static void write(Tensor t, int at, double v) {
        switch (t.dtype()) {
            case FLOAT32 -> t.storage().floats()[at] = (float) v;
            case INT64 -> t.storage().longs()[at] = (long) v;
            case BOOL -> t.storage().bools()[at] = v != 0;
        }
    }
}
