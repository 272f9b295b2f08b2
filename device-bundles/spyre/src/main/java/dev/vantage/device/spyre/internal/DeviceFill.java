package dev.vantage.device.spyre.internal;

import java.util.Arrays;

import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.Storage;

/**
 * The DMA engine's fill: sets every element of a device tensor, which may be a strided view, to a value
 * converted to its dtype ({@code (float)}, {@code (long)}, non-zero for {@code bool}), as the host's
 * {@code aten::fill_} does. Runs on a stream's worker.
 */
final class DeviceFill {

    private DeviceFill() {
    }

    /** Fills a tensor's elements with a value. */
    static void fill(Tensor t, double value) {
        int n = t.numel();
        if (n == 0) {
            return;
        }
        Storage s = t.storage();
        if (t.isContiguous()) {
            int from = t.storageOffset();
            switch (t.dtype()) {
                case FLOAT32 -> Arrays.fill(s.floats(), from, from + n, (float) value);
                case INT64 -> Arrays.fill(s.longs(), from, from + n, (long) value);
                case BOOL -> Arrays.fill(s.bools(), from, from + n, value != 0);
            }
            return;
        }
        int[] sizes = t.sizes();
        int[] strides = t.strides();
        int[] index = new int[sizes.length];
        int at = t.storageOffset();
        for (int k = 0; k < n; k++) {
            set(s, at, value);
            for (int d = sizes.length - 1; d >= 0; d--) {
                index[d]++;
                at += strides[d];
                if (index[d] < sizes[d]) {
                    break;
                }
                at -= strides[d] * sizes[d];
                index[d] = 0;
            }
        }
    }

    private static void set(Storage s, int at, double value) {
        switch (s.dtype()) {
            case FLOAT32 -> s.floats()[at] = (float) value;
            case INT64 -> s.longs()[at] = (long) value;
            case BOOL -> s.bools()[at] = value != 0;
        }
    }
}
