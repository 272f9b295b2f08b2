package dev.vantage.tensor;

import java.util.List;
import java.util.Objects;

import dev.vantage.tensor.internal.Dispatcher;

/** What devices the runtime can run on now. */
public final class Devices {

    private Devices() {
    }

    /** Returns the installed device backends, sorted by device type; a snapshot. */
    public static List<DeviceInfo> installed() {
        return Dispatcher.installedDevices();
    }

    /**
     * Waits until all work launched on a device has finished, as {@code torch.npu.synchronize()}: kernels on an
     * accelerator run asynchronously, so a timing taken without it measures the launches, not the work.
     *
     * @throws IllegalArgumentException if no backend serves the device
     * @throws RuntimeException if launched work failed on the device
     */
    public static void synchronize(Device device) {
        Dispatcher.backend(Objects.requireNonNull(device, "device")).synchronize(device);
    }
}
