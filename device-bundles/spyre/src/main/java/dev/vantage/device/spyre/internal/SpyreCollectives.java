package dev.vantage.device.spyre.internal;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import dev.vantage.device.kit.DeviceCollectives;
import dev.vantage.device.spyre.driver.SpyreDriver;
import dev.vantage.tensor.distributed.CollectiveBackend;
import dev.vantage.tensor.distributed.CollectiveInfo;

/**
 * Collectives on Spyre tensors: each runs as communication work on the card's communication stream (its last),
 * launched from the op that called the collective ({@code record_param_comms}) so the profile links the two and
 * shows the communication overlapping compute. Names follow NCCL's convention, which HTA and the TensorBoard
 * plugin's Distributed view recognise: the scope is {@code nccl:all_reduce} and so is the kernel. The data moves
 * over the process group's host ring, staged through host copies; the card and its timings are emulated.
 */
@Component(service = CollectiveBackend.class)
public class SpyreCollectives extends DeviceCollectives {

    private final SpyreDriver driver;

    /** Creates the backend over the Spyre driver. */
    @Activate
    public SpyreCollectives(@Reference SpyreDriver driver) {
        super(EmulatedSpyreDriver.TYPE, "nccl");
        this.driver = driver;
    }

    /** The calling op's external correlation id, which the tracing library holds once it is loaded. */
    @Override
    protected long externalCorrelation(int device) {
        return driver.tracingLoaded() ? driver.tracing().externalCorrelation() : -1;
    }

    @Override
    protected void run(int device, long externalCorrelation, CollectiveInfo info, Runnable transfer) {
        driver.runCollective(device, externalCorrelation, EmulatedSpyreDriver.API_LAUNCH,
                name() + ":" + info.scopeName(), info.kernelArgs(), transfer);
    }
}
