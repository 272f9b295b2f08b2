package dev.vantage.tensor.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

import dev.vantage.profiler.dispatch.Dispatch;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.DeviceInfo;
import dev.vantage.tensor.DispatchKey;
import dev.vantage.tensor.spi.Backend;
import dev.vantage.tensor.spi.Kernel;
import dev.vantage.tensor.spi.KernelOps;
import dev.vantage.tensor.spi.KernelRegistry;
import dev.vantage.tensor.spi.Storage;

/**
 * Which backend serves each device type, and which kernel each backend has for each op.
 *
 * <p>Design: the kernel table is an immutable {@code [kernel][dispatch key]} array, and the backends an immutable
 * map, both replaced as a whole when a backend arrives or leaves; ops read them without a lock. Installing and
 * removing are synchronized with each other.
 */
public final class Dispatcher {

    private static final int KEY_COUNT = DispatchKey.values().length;

    private static volatile Kernel[][] kernels = new Kernel[KernelOps.ALL.size()][KEY_COUNT];
    private static volatile Map<String, Backend> backends = Map.of();
    private static final Map<Backend, DeviceInfo> INFOS = new HashMap<>();

    static {
        // stacks recorded with withStack show the caller of an op, not how the runtime ran it
        Dispatch.hideFramesOf("dev.vantage.tensor.");
    }

    private Dispatcher() {
    }

    /**
     * Returns the backend of a device.
     *
     * @throws IllegalArgumentException if no backend serves the device's type, or it has no such index
     */
    public static Backend backend(Device device) {
        Backend b = backends.get(device.type());
        if (b == null) {
            throw new IllegalArgumentException("no backend for device " + device + "; installed: "
                    + installedDeviceTypes());
        }
        if (device.index() >= b.deviceCount()) {
            throw new IllegalArgumentException("device " + device + " does not exist; the " + device.type()
                    + " backend has " + b.deviceCount() + " device(s)");
        }
        return b;
    }

    /** Returns the kernel a device's backend registered for an op, or null when it has none. */
    public static Kernel kernel(OpDef op, Device device) {
        return kernels[op.kernel()][backend(device).dispatchKey().ordinal()];
    }

    /**
     * Returns the kernel a device's backend registered under a {@link KernelOps} index, or null when it has none
     * or no backend serves the device.
     */
    public static Kernel kernel(int kernelIndex, Device device) {
        Backend b = backends.get(device.type());
        return b == null ? null : kernels[kernelIndex][b.dispatchKey().ordinal()];
    }

    /** Allocates memory for a tensor on a device, through its backend's allocator. */
    public static Storage allocate(Device device, DType dtype, int size) {
        return backend(device).allocate(device, dtype, size);
    }

    /** Returns the dispatch key name ops on a device are shown with, or the empty string if none serves it. */
    static String keyName(Device device) {
        Backend b = backends.get(device.type());
        return b == null ? "" : b.dispatchKeyName();
    }

    /** Returns the device types that have a backend installed, sorted. */
    public static Set<String> installedDeviceTypes() {
        return new TreeSet<>(backends.keySet());
    }

    /** Returns the installed backends, sorted by device type. */
    public static synchronized List<DeviceInfo> installedDevices() {
        // emulated is read now: a device bundle may have swapped its emulated driver for a vendor's since
        List<DeviceInfo> list = new ArrayList<>();
        for (Map.Entry<Backend, DeviceInfo> e : INFOS.entrySet()) {
            DeviceInfo i = e.getValue();
            list.add(new DeviceInfo(i.type(), i.dispatchKey(), e.getKey().emulated(), i.bundle(), i.version()));
        }
        list.sort(Comparator.comparing(DeviceInfo::type));
        return list;
    }

    /**
     * Installs a backend's kernels for its dispatch key.
     *
     * @throws IllegalStateException if another backend holds that key or that device type
     */
    public static synchronized void install(Backend backend, String bundle, String version) {
        DispatchKey key = backend.dispatchKey();
        for (Backend other : backends.values()) {
            if (other != backend && (other.dispatchKey() == key || other.deviceType().equals(backend.deviceType()))) {
                throw new IllegalStateException("dispatch key " + key + " or device type " + backend.deviceType()
                        + " is taken by the " + other.deviceType() + " backend; the " + backend.deviceType()
                        + " backend was not installed");
            }
        }
        Kernel[] column = new Kernel[KernelOps.ALL.size()];
        backend.registerKernels(new Registry(column));
        Kernel[][] table = copyTable();
        for (int op = 0; op < column.length; op++) {
            table[op][key.ordinal()] = column[op];
        }
        INFOS.put(backend, new DeviceInfo(backend.deviceType(), backend.dispatchKeyName(), backend.emulated(),
                bundle, version));
        Map<String, Backend> map = new HashMap<>(backends);
        map.put(backend.deviceType(), backend);
        kernels = table;
        backends = Map.copyOf(map);
    }

    /** Removes a backend's kernels; does nothing if it is not installed. */
    public static synchronized void uninstall(Backend backend) {
        if (backends.get(backend.deviceType()) != backend) {
            return;
        }
        INFOS.remove(backend);
        Map<String, Backend> map = new HashMap<>(backends);
        map.remove(backend.deviceType());
        backends = Map.copyOf(map);
        Kernel[][] table = copyTable();
        for (Kernel[] row : table) {
            row[backend.dispatchKey().ordinal()] = null;
        }
        kernels = table;
    }

    /** Removes every backend. */
    public static synchronized void uninstallAll() {
        INFOS.clear();
        backends = Map.of();
        kernels = new Kernel[KernelOps.ALL.size()][KEY_COUNT];
    }

    private static Kernel[][] copyTable() {
        Kernel[][] current = kernels;
        Kernel[][] copy = new Kernel[current.length][];
        for (int i = 0; i < current.length; i++) {
            copy[i] = current[i].clone();
        }
        return copy;
    }

    /** Collects one backend's kernels into a column of the table. */
    private static final class Registry implements KernelRegistry {
        private final Kernel[] column;

        Registry(Kernel[] column) {
            this.column = column;
        }

        @Override
        public Set<String> ops() {
            return new TreeSet<>(KernelOps.ALL);
        }

        @Override
        public void register(String op, Kernel kernel) {
            Objects.requireNonNull(kernel, "kernel");
            int index = KernelOps.ALL.indexOf(op);
            if (index < 0) {
                throw new IllegalArgumentException("no kernel named '" + op + "'; declared: " + ops());
            }
            column[index] = kernel;
        }
    }
}
