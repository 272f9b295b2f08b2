package dev.vantage.device.contract;

/** The NPU bundle on its emulated driver keeps the contract. */
public class NpuContractTest extends DeviceContract {

    @Override
    protected DeviceFixture create(long capacityBytes) {
        return Fixtures.npu(capacityBytes);
    }
}
