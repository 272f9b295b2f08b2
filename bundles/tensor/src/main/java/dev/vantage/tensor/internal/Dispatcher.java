package dev.vantage.tensor.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

import dev.vantage.profiler.dispatch.Dispatch;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.DeviceInfo;
import dev.vantage.tensor.DispatchKey;
import dev.vantage.tensor.spi.Backend;
import dev.vantage.tensor.spi.Kernel;
import dev.vantage.tensor.spi.KernelOps;
import dev.vantage.tensor.spi.KernelRegistry;

/**
 * Which backend serves each device type, and which kernel each backend has for each op.
 *
 * <p>Design: both live in one immutable {@link Table}, replaced as a whole when a backend arrives or leaves, so an
 * op reads one volatile field and finds its backend and its kernel in the same snapshot, without a lock: one lookup
 * of the backend per op ({@link Table#slot}), then array indexes for the backend and its kernel. Installing and
 * removing are synchronized with each other.
 */
public final class Dispatcher {

    private static final int KEY_COUNT = DispatchKey.values().length;

    private static volatile Table table = new Table(new String[0], new Backend[0], new int[0],
            new Kernel[KernelOps.ALL.size()][KEY_COUNT], -1);
    private static final Map<Backend, DeviceInfo> INFOS = new HashMap<>();

    static {
        // stacks recorded with withStack show the caller of an op, not how the runtime ran it
        Dispatch.hideFramesOf("dev.vantage.tensor.");
    }

    private Dispatcher() {
    }

    /**
     * The backends and their kernels at one moment: what an op reads once.
     *
     * @param types the device type of each backend, by slot
     * @param backends the backends by slot, in the order they were installed
     * @param keys the dispatch key ordinal of each backend, by slot
     * @param kernels {@code [kernel][dispatch key]}, null where a backend has no kernel
     * @param hostSlot the slot of the host's backend, or -1 when none is installed
     */
    public record Table(String[] types, Backend[] backends, int[] keys, Kernel[][] kernels, int hostSlot) {

        /**
         * Returns the slot of the backend that serves a device's type: the op's one backend lookup. The host's
         * tensors, which carry the constant {@link Device#CPU}, find it by identity. An op on existing tensors needs
         * no check of the device index, since the backend that allocated them had it.
         *
         * @throws IllegalArgumentException if no backend serves the device's type
         */
        public int slot(Device device) {
            if (device == Device.CPU && hostSlot >= 0) {
                return hostSlot;
            }
            String type = device.type();
            String[] t = types;
            for (int i = 0; i < t.length; i++) {
                if (t[i] == type || t[i].equals(type)) {
                    return i;
                }
            }
            throw new IllegalArgumentException("no backend for device " + device + "; installed: "
                    + new TreeSet<>(Arrays.asList(t)));
        }

        /** Returns the backend of a device's type. */
        public Backend backend(Device device) {
            return backends[slot(device)];
        }

        /** Returns the kernel the backend in a slot registered under a {@link KernelOps} index, or null. */
        public Kernel kernel(int kernelIndex, int slot) {
            return kernels[kernelIndex][keys[slot]];
        }
    }

    /** Returns the backends and kernels installed now. */
    public static Table table() {
        return table;
    }

    /**
     * Returns the backend of a device, checking that the device exists: for what a user names ({@code synchronize}).
     *
     * @throws IllegalArgumentException if no backend serves the device's type, or it has no such index
     */
    public static Backend backend(Device device) {
        Backend b = table.backend(device);
        if (device.index() >= b.deviceCount()) {
            throw new IllegalArgumentException("device " + device + " does not exist; the " + device.type()
                    + " backend has " + b.deviceCount() + " device(s)");
        }
        return b;
    }

    /**
     * Returns the kernel a device's backend registered under a {@link KernelOps} index, or null when it has none
     * or no backend serves the device.
     */
    public static Kernel kernel(int kernelIndex, Device device) {
        Table t = table;
        for (int i = 0; i < t.types.length; i++) {
            if (t.types[i].equals(device.type())) {
                return t.kernel(kernelIndex, i);
            }
        }
        return null;
    }

    /** Returns the dispatch key name ops on a device are shown with, or the empty string if none serves it. */
    public static String keyName(Device device) {
        Table t = table;
        for (int i = 0; i < t.types.length; i++) {
            if (t.types[i].equals(device.type())) {
                return t.backends[i].dispatchKeyName();
            }
        }
        return "";
    }

    /** Returns the device types that have a backend installed, sorted. */
    public static Set<String> installedDeviceTypes() {
        return new TreeSet<>(Arrays.asList(table.types));
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
        Table current = table;
        for (Backend other : current.backends) {
            if (other != backend && (other.dispatchKey() == key || other.deviceType().equals(backend.deviceType()))) {
                throw new IllegalStateException("dispatch key " + key + " or device type " + backend.deviceType()
                        + " is taken by the " + other.deviceType() + " backend; the " + backend.deviceType()
                        + " backend was not installed");
            }
        }
        Kernel[] column = new Kernel[KernelOps.ALL.size()];
        backend.registerKernels(new Registry(column));
        Kernel[][] kernels = copy(current.kernels);
        for (int op = 0; op < column.length; op++) {
            kernels[op][key.ordinal()] = column[op];
        }
        INFOS.put(backend, new DeviceInfo(backend.deviceType(), backend.dispatchKeyName(), backend.emulated(),
                bundle, version));
        List<Backend> backends = new ArrayList<>(Arrays.asList(current.backends));
        backends.remove(backend);
        backends.add(backend);
        table = table(backends, kernels);
    }

    /** Removes a backend's kernels; does nothing if it is not installed. */
    public static synchronized void uninstall(Backend backend) {
        Table current = table;
        List<Backend> backends = new ArrayList<>(Arrays.asList(current.backends));
        if (!backends.remove(backend)) {
            return;
        }
        INFOS.remove(backend);
        Kernel[][] kernels = copy(current.kernels);
        for (Kernel[] row : kernels) {
            row[backend.dispatchKey().ordinal()] = null;
        }
        table = table(backends, kernels);
    }

    /** Removes every backend. */
    public static synchronized void uninstallAll() {
        INFOS.clear();
        table = table(List.of(), new Kernel[KernelOps.ALL.size()][KEY_COUNT]);
    }

    private static Table table(List<Backend> backends, Kernel[][] kernels) {
        String[] types = new String[backends.size()];
        int[] keys = new int[types.length];
        int host = -1;
        for (int i = 0; i < types.length; i++) {
            // interned, so that the usual lookup, of a type string the runtime handed out, is an identity check
            types[i] = backends.get(i).deviceType().intern();
            keys[i] = backends.get(i).dispatchKey().ordinal();
            if (types[i].equals(Device.CPU.type())) {
                host = i;
            }
        }
        return new Table(types, backends.toArray(new Backend[0]), keys, kernels, host);
    }

    private static Kernel[][] copy(Kernel[][] current) {
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
