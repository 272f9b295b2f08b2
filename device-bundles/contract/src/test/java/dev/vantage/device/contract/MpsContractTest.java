package dev.vantage.device.contract;

/** The MPS bundle on its emulated driver keeps the contract. */
public class MpsContractTest extends DeviceContract {

    @Override
    protected DeviceFixture create(long capacityBytes) {
        return Fixtures.mps(capacityBytes);
    }
}
