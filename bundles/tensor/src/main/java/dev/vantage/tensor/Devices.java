package dev.vantage.tensor;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

import dev.vantage.tensor.internal.Dispatcher;

/** What devices the runtime can run on now. */
public final class Devices {

    /**
     * Every device an op has been asked to make a tensor on, by id: how an op's integer arguments name a device, as
     * torch passes one as a type and an index. Grows by the devices a program names, which are few.
     */
    private static volatile Device[] named = {Device.CPU};

    private Devices() {
    }

    /** Returns the id of a device among those ops were asked to make tensors on, adding it the first time. */
    static long id(Device device) {
        Device[] n = named;
        for (int i = 0; i < n.length; i++) {
            if (n[i] == device || n[i].equals(device)) {
                return i;
            }
        }
        return add(device);
    }

    private static synchronized long add(Device device) {
        Device[] n = named;
        int i = Arrays.asList(n).indexOf(device);
        if (i >= 0) {
            return i;
        }
        n = Arrays.copyOf(n, n.length + 1);
        n[n.length - 1] = device;
        named = n;
        return n.length - 1;
    }

    /** Returns the device of an {@link #id}. */
    static Device of(long id) {
        return named[(int) id];
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
