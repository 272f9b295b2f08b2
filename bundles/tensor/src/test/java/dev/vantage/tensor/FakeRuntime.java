package dev.vantage.tensor;

import org.junit.rules.ExternalResource;

import dev.vantage.profiler.dispatch.Dispatch;
import dev.vantage.profiler.dispatch.DispatchHook;
import dev.vantage.tensor.internal.Dispatcher;

/**
 * A rule that runs a test on a fake {@code cpu} and {@code npu} backend with dispatch claimed by the test (a hook
 * that fails fails the test), and uninstalls both and releases the claim after it.
 */
final class FakeRuntime extends ExternalResource {

    final FakeBackend cpu = new FakeBackend("cpu", DispatchKey.CPU);
    final FakeBackend npu = new FakeBackend("npu", DispatchKey.NPU);
    private Object token;

    @Override
    protected void before() {
        Dispatcher.install(cpu, "test", "0");
        Dispatcher.install(npu, "test", "0");
        token = Dispatch.claim((h, e) -> {
            throw new AssertionError("hook failed", e);
        });
    }

    /** Makes these hooks the ones every op calls from now on, in place of any published before. */
    void listen(DispatchHook... hooks) {
        Dispatch.publish(token, hooks);
    }

    @Override
    protected void after() {
        Dispatch.release(token);
        Dispatcher.uninstallAll();
    }
}
