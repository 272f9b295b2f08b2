package dev.vantage.device.cpu.internal;

import dev.vantage.tensor.internal.Dispatcher;

/** Installs the real CPU backend into the tensor runtime for a test, as Declarative Services does in the platform. */
final class CpuRuntime {

    private CpuRuntime() {
    }

    static CpuBackend install() {
        CpuBackend backend = new CpuBackend(new HostAllocator());
        Dispatcher.install(backend, "test", "0");
        return backend;
    }

    static void uninstall(CpuBackend backend) {
        Dispatcher.uninstallAll();
        backend.deactivate();
    }
}
