package dev.vantage.device.contract;

/** The CPU bundle keeps the contract where it applies: it has no capacity of its own and no device activity. */
public class CpuContractTest extends DeviceContract {

    @Override
    protected DeviceFixture host() {
        return Fixtures.cpu();
    }

    @Override
    protected DeviceFixture create(long capacityBytes) {
        return hostFixture();
    }
}
