package dev.vantage.tensor.internal;

import dev.vantage.tensor.spi.Backend;

/**
 * Installs backends into the dispatcher on a plain class path, as the runtime's registry does in the platform: a test
 * fixture the runtime publishes in its test jar, for tools that run it outside a framework (the benchmarks). It is in
 * the runtime's package because installing is package-private there.
 */
public final class StandaloneBackends {

    private StandaloneBackends() {
    }

    public static void install(Backend backend) {
        Dispatcher.install(backend, "benchmark", "0");
    }

    public static void clear() {
        Dispatcher.uninstallAll();
    }
}
