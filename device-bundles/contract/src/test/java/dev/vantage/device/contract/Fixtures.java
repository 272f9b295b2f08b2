package dev.vantage.device.contract;

import java.util.Map;

import dev.vantage.device.cpu.internal.CpuBackend;
import dev.vantage.device.mps.internal.EmulatedMetalDriver;
import dev.vantage.device.mps.internal.MpsActivitySource;
import dev.vantage.device.mps.internal.MpsAllocator;
import dev.vantage.device.mps.internal.MpsBackend;
import dev.vantage.device.npu.internal.EmulatedNpuDriver;
import dev.vantage.device.npu.internal.NpuActivitySource;
import dev.vantage.device.npu.internal.NpuAllocator;
import dev.vantage.device.npu.internal.NpuBackend;
import dev.vantage.device.spyre.internal.EmulatedSpyreDriver;
import dev.vantage.device.spyre.internal.SpyreActivitySource;
import dev.vantage.device.spyre.internal.SpyreAllocator;
import dev.vantage.device.spyre.internal.SpyreBackend;
import dev.vantage.profiler.api.Activity;

/** The device bundles of this repository, wired as Declarative Services wires them. */
final class Fixtures {

    private Fixtures() {
    }

    static DeviceFixture cpu() {
        CpuBackend backend = new CpuBackend();
        return new DeviceFixture(backend, null, null, null, backend, -1, backend::deactivate);
    }

    static DeviceFixture npu(long capacityBytes) {
        EmulatedNpuDriver driver = new EmulatedNpuDriver(Map.of("capacity.mib", Long.toString(capacityBytes >> 20)));
        return new DeviceFixture(new NpuBackend(driver), new NpuActivitySource(driver), Activity.NPU, driver,
                new NpuAllocator(driver), capacityBytes, driver::close);
    }

    static DeviceFixture spyre(long capacityBytes) {
        EmulatedSpyreDriver driver = new EmulatedSpyreDriver(
                Map.of("capacity.mib", Long.toString(capacityBytes >> 20)));
        return new DeviceFixture(new SpyreBackend(driver), new SpyreActivitySource(driver), Activity.SPYRE, driver,
                new SpyreAllocator(driver), capacityBytes, driver::close);
    }

    static DeviceFixture mps(long capacityBytes) {
        EmulatedMetalDriver driver = new EmulatedMetalDriver(
                Map.of("capacity.mib", Long.toString(capacityBytes >> 20)));
        return new DeviceFixture(new MpsBackend(driver), new MpsActivitySource(driver), Activity.MPS, driver,
                new MpsAllocator(driver), capacityBytes, driver::close);
    }
}
