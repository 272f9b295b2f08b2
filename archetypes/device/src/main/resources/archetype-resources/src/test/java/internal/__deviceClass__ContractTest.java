package ${package}.internal;

import java.util.Map;

import dev.vantage.device.contract.DeviceContract;
import dev.vantage.device.contract.DeviceFixture;

/**
 * The device contract over this bundle on its emulated driver: kernels for every op that give the host's results,
 * training, memory and out-of-memory behaviour, and activity that links every kernel to the op that launched it.
 * The host side is the CPU backend, which the suite installs itself.
 */
public class ${deviceClass}ContractTest extends DeviceContract {

    @Override
    protected DeviceFixture create(long capacityBytes) {
        Emulated${deviceClass}Driver driver = new Emulated${deviceClass}Driver(
                Map.of("capacity.mib", Long.toString(capacityBytes >> 20)));
        return new DeviceFixture(new ${deviceClass}Backend(driver), new ${deviceClass}ActivitySource(driver),
                ${deviceClass}ActivitySource.ACTIVITY, driver, new ${deviceClass}Allocator(driver), capacityBytes,
                driver::close);
    }
}
