package dev.vantage.device.contract;

/** The Spyre bundle (PrivateUse1) on its emulated driver keeps the contract. */
public class SpyreContractTest extends DeviceContract {

    @Override
    protected DeviceFixture create(long capacityBytes) {
        return Fixtures.spyre(capacityBytes);
    }
}
