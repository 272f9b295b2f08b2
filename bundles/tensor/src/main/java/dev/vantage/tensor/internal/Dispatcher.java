package dev.vantage.tensor.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

import dev.vantage.profiler.spi.Dispatch;
import dev.vantage.profiler.spi.DispatchHook;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.DeviceInfo;
import dev.vantage.tensor.DispatchKey;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.Backend;
import dev.vantage.tensor.spi.BinaryKernel;
import dev.vantage.tensor.spi.KernelRegistry;
import dev.vantage.tensor.spi.UnaryKernel;

/**
 * Chooses the kernel for an op by the inputs' device and calls it, with the profiler's dispatch hooks around it.
 *
 * <p>Design: the kernel table is an immutable {@code [op][dispatch key]} array replaced as a whole when a backend
 * arrives or leaves, so dispatch reads it without a lock. When no hook listens, dispatch is a table read, one
 * read of {@link Dispatch#hooks()} and the kernel call; with hooks it also fills this thread's reusable
 * {@link CallFrame}.
 */
public final class Dispatcher {

    private static final int KEY_COUNT = DispatchKey.values().length;
    private static final ThreadLocal<CallFrame.Stack> FRAMES = ThreadLocal.withInitial(CallFrame.Stack::new);

    private static volatile Object[][] kernels = new Object[Ops.ALL.size()][KEY_COUNT];
    private static volatile Map<String, DispatchKey> keyByDeviceType = Map.of();
    private static final Map<DispatchKey, Backend> OWNERS = new HashMap<>();
    private static final Map<Backend, DeviceInfo> INFOS = new HashMap<>();

    static {
        // stacks recorded with withStack show the caller of an op, not how it was dispatched
        Dispatch.hideFramesOf("dev.vantage.tensor.internal.");
        Dispatch.hideFramesOf("dev.vantage.tensor.Tensor");
    }

    private Dispatcher() {
    }

    /** Dispatches a two-input op. */
    public static Tensor binary(OpDef op, Tensor a, Tensor b) {
        Objects.requireNonNull(a, "a");
        Objects.requireNonNull(b, "b");
        if (!a.device().equals(b.device())) {
            throw new IllegalArgumentException(op + ": expected all tensors on one device, got " + a.device()
                    + " and " + b.device());
        }
        int key = keyOf(a.device());
        BinaryKernel kernel = (BinaryKernel) kernel(op, key, a.device());
        DispatchHook[] hooks = Dispatch.hooks();
        if (hooks == null) {
            return kernel.apply(a, b);
        }
        CallFrame.Stack stack = FRAMES.get();
        CallFrame frame = stack.push(op, key, a.device().index(), a, b, hooks.length);
        Dispatch.enter(hooks, frame, frame.handles);
        try {
            return kernel.apply(a, b);
        } finally {
            Dispatch.exit(hooks, frame, frame.handles);
            stack.pop();
        }
    }

    /** Dispatches a one-input op. */
    public static Tensor unary(OpDef op, Tensor a) {
        Objects.requireNonNull(a, "a");
        int key = keyOf(a.device());
        UnaryKernel kernel = (UnaryKernel) kernel(op, key, a.device());
        DispatchHook[] hooks = Dispatch.hooks();
        if (hooks == null) {
            return kernel.apply(a);
        }
        CallFrame.Stack stack = FRAMES.get();
        CallFrame frame = stack.push(op, key, a.device().index(), a, null, hooks.length);
        Dispatch.enter(hooks, frame, frame.handles);
        try {
            return kernel.apply(a);
        } finally {
            Dispatch.exit(hooks, frame, frame.handles);
            stack.pop();
        }
    }

    private static int keyOf(Device device) {
        if (device.type().equals("cpu")) {
            return DispatchKey.CPU.ordinal();
        }
        DispatchKey key = keyByDeviceType.get(device.type());
        if (key == null) {
            throw new IllegalArgumentException("no backend for device " + device + "; installed: "
                    + installedDeviceTypes());
        }
        return key.ordinal();
    }

    private static Object kernel(OpDef op, int key, Device device) {
        Object kernel = kernels[op.index()][key];
        if (kernel == null) {
            throw new IllegalStateException(op + " has no kernel for device " + device
                    + "; installed device backends: " + installedDeviceTypes());
        }
        return kernel;
    }

    /** Returns the device types that have a backend installed, sorted. */
    public static synchronized Set<String> installedDeviceTypes() {
        Set<String> types = new TreeSet<>();
        OWNERS.values().forEach(b -> types.add(b.deviceType()));
        return types;
    }

    /** Returns the installed backends, sorted by device type. */
    public static synchronized List<DeviceInfo> installedDevices() {
        List<DeviceInfo> list = new ArrayList<>(INFOS.values());
        list.sort(Comparator.comparing(DeviceInfo::type));
        return list;
    }

    /**
     * Installs a backend's kernels for its dispatch key.
     *
     * @throws IllegalStateException if another backend holds that key
     */
    static synchronized void install(Backend backend, String bundle, String version) {
        DispatchKey key = backend.dispatchKey();
        Backend owner = OWNERS.get(key);
        if (owner != null && owner != backend) {
            throw new IllegalStateException("dispatch key " + key + " is taken by the " + owner.deviceType()
                    + " backend; the " + backend.deviceType() + " backend was not installed");
        }
        Object[] column = new Object[Ops.ALL.size()];
        backend.registerKernels(new Registry(column));
        Object[][] table = copyTable();
        for (int op = 0; op < column.length; op++) {
            table[op][key.ordinal()] = column[op];
        }
        OWNERS.put(key, backend);
        INFOS.put(backend, new DeviceInfo(backend.deviceType(), key.name(), backend.emulated(), bundle, version));
        Map<String, DispatchKey> keys = new HashMap<>(keyByDeviceType);
        keys.put(backend.deviceType(), key);
        keyByDeviceType = Map.copyOf(keys);
        kernels = table;
    }

    /** Removes a backend's kernels; does nothing if it is not installed. */
    static synchronized void uninstall(Backend backend) {
        DispatchKey key = backend.dispatchKey();
        if (OWNERS.get(key) != backend) {
            return;
        }
        OWNERS.remove(key);
        INFOS.remove(backend);
        Object[][] table = copyTable();
        for (Object[] row : table) {
            row[key.ordinal()] = null;
        }
        Map<String, DispatchKey> keys = new HashMap<>(keyByDeviceType);
        keys.remove(backend.deviceType());
        keyByDeviceType = Map.copyOf(keys);
        kernels = table;
    }

    /** Removes every backend. */
    static synchronized void uninstallAll() {
        OWNERS.clear();
        INFOS.clear();
        keyByDeviceType = Map.of();
        kernels = new Object[Ops.ALL.size()][KEY_COUNT];
    }

    private static Object[][] copyTable() {
        Object[][] current = kernels;
        Object[][] copy = new Object[current.length][];
        for (int i = 0; i < current.length; i++) {
            copy[i] = current[i].clone();
        }
        return copy;
    }

    /** Collects one backend's kernels into a column of the table. */
    private static final class Registry implements KernelRegistry {
        private final Object[] column;

        Registry(Object[] column) {
            this.column = column;
        }

        @Override
        public Set<String> ops() {
            Set<String> names = new TreeSet<>();
            Ops.ALL.forEach(op -> names.add(op.name()));
            return names;
        }

        @Override
        public void binary(String op, BinaryKernel kernel) {
            put(op, 2, kernel);
        }

        @Override
        public void unary(String op, UnaryKernel kernel) {
            put(op, 1, kernel);
        }

        private void put(String name, int arity, Object kernel) {
            Objects.requireNonNull(kernel, "kernel");
            OpDef op = Ops.byName(name);
            if (op == null) {
                throw new IllegalArgumentException("no op named '" + name + "'; declared: " + ops());
            }
            if (op.arity() != arity) {
                throw new IllegalArgumentException(name + " takes " + op.arity() + " tensors, not " + arity);
            }
            column[op.index()] = kernel;
        }
    }
}
