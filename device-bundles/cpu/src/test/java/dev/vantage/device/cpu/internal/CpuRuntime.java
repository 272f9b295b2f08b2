package dev.vantage.device.cpu.internal;

import org.junit.rules.ExternalResource;

import dev.vantage.tensor.internal.Dispatcher;

/**
 * Installs the real CPU backend into the tensor runtime for a test, as Declarative Services does in the platform:
 * as a rule ({@code @ClassRule public static final CpuRuntime CPU = new CpuRuntime();}) around a test class, or
 * by {@link #install()} and {@link #uninstall} around each test.
 */
final class CpuRuntime extends ExternalResource {

    private CpuBackend backend;

    @Override
    protected void before() {
        backend = install();
    }

    @Override
    protected void after() {
        uninstall(backend);
    }

    static CpuBackend install() {
        CpuBackend backend = new CpuBackend();
        Dispatcher.install(backend, "test", "0");
        return backend;
    }

    static void uninstall(CpuBackend backend) {
        Dispatcher.uninstallAll();
        backend.deactivate();
    }
}
