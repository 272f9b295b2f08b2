package dev.vantage.tensor.spi;

import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import dev.vantage.tensor.internal.Dispatcher;

/**
 * Installs backends into the runtime without a framework: for a device bundle's own unit tests, the device contract
 * suite, and an application that embeds the runtime. Inside the platform a backend is a {@link Backend} service and
 * the runtime installs it when it arrives; nothing else should call these.
 */
public final class Backends {

    private Backends() {
    }

    /**
     * Installs a backend's kernels for its dispatch key, as the runtime does for a {@link Backend} service.
     *
     * @param backend the backend; not null
     * @param source what installed it, shown where a bundle's symbolic name would be (a test's name, say)
     * @param version the version shown beside the source
     * @throws IllegalStateException if another backend holds its dispatch key or its device type; the message
     *     names the holder
     */
    public static void install(Backend backend, String source, String version) {
        Dispatcher.install(Objects.requireNonNull(backend, "backend"), Objects.requireNonNull(source, "source"),
                Objects.requireNonNull(version, "version"));
    }

    /** Removes a backend's kernels; does nothing if it is not installed. */
    public static void uninstall(Backend backend) {
        Dispatcher.uninstall(Objects.requireNonNull(backend, "backend"));
    }

    /** Removes every installed backend. */
    public static void uninstallAll() {
        Dispatcher.uninstallAll();
    }

    /**
     * Returns the names of the kernels a backend registers, without installing it.
     *
     * @throws IllegalArgumentException if the backend registers a name that is not one of {@link KernelOps#ALL},
     *     or one name twice
     */
    public static Set<String> kernelsOf(Backend backend) {
        return new TreeSet<>(kernels(backend).keySet());
    }

    /**
     * Returns the kernels a backend registers, by op name, without installing it: what a device bundle's tests
     * call a kernel through.
     *
     * @throws IllegalArgumentException if the backend registers a name that is not one of {@link KernelOps#ALL},
     *     or one name twice
     * @since 3.2
     */
    public static Map<String, Kernel> kernels(Backend backend) {
        Map<String, Kernel> registered = new TreeMap<>();
        Objects.requireNonNull(backend, "backend").registerKernels(new KernelRegistry() {
            @Override
            public Set<String> ops() {
                return new TreeSet<>(KernelOps.ALL);
            }

            @Override
            public void register(String op, Kernel kernel) {
                if (!KernelOps.ALL.contains(op)) {
                    throw new IllegalArgumentException("no kernel named '" + op + "'; declared: " + ops());
                }
                if (registered.putIfAbsent(op, Objects.requireNonNull(kernel, op)) != null) {
                    throw new IllegalArgumentException("the kernel '" + op + "' is registered twice");
                }
            }
        });
        return registered;
    }
}
