package dev.vantage.device.contract;

import dev.vantage.device.cpu.host.CpuHost;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.Backends;

/** The session rules over the NPU bundle's activity source: a matmul launched on the emulated NPU per op. */
public class NpuActivityContractTest extends ActivitySourceContract {

    @Override
    protected ActivityFixture create() {
        Backends.uninstallAll();
        CpuHost cpu = CpuHost.open();
        Backends.install(cpu.backend(), "contract", "0");
        DeviceFixture npu = Fixtures.npu(64L << 20);
        Backends.install(npu.backend(), "contract", "0");
        Tensor a = Tensor.randn(3, 16, 16).to(new Device("npu", 0));
        return new ActivityFixture(npu.source(), () -> a.mm(a).toFloatArray(), () -> {
            Backends.uninstallAll();
            npu.close().run();
            cpu.close();
        });
    }
}
