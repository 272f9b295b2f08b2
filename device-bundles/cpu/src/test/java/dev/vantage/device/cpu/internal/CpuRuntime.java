package dev.vantage.device.cpu.internal;

import java.lang.reflect.Field;

import dev.vantage.tensor.internal.Dispatcher;

/** Installs the real CPU backend into the tensor runtime for a test, as Declarative Services does in the platform. */
final class CpuRuntime {

    private CpuRuntime() {
    }

    static CpuBackend install() {
        try {
            CpuBackend backend = new CpuBackend();
            Field memory = CpuBackend.class.getDeclaredField("memory");
            memory.setAccessible(true);
            memory.set(backend, new HostAllocator());
            backend.activate();
            Dispatcher.install(backend, "test", "0");
            return backend;
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    static void uninstall(CpuBackend backend) {
        Dispatcher.uninstallAll();
        backend.deactivate();
    }
}
