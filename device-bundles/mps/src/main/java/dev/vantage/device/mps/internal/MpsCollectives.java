package dev.vantage.device.mps.internal;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import dev.vantage.device.kit.DeviceCollectives;
import dev.vantage.device.mps.driver.MetalDriver;
import dev.vantage.device.mps.driver.MetalRecords;
import dev.vantage.tensor.distributed.CollectiveBackend;
import dev.vantage.tensor.distributed.CollectiveInfo;

/**
 * Collectives on MPS tensors: each runs as a command buffer of its own on the pool's last stream, launched from
 * the op that called the collective ({@code record_param_comms}) so the profile links the two and shows the
 * communication overlapping compute. Names follow NCCL's convention, which HTA and the TensorBoard plugin's
 * Distributed view recognise: the scope is {@code nccl:all_reduce} and so is the kernel. The data moves over the
 * process group's host ring, staged through host copies; the GPU and its timings are emulated.
 */
@Component(service = CollectiveBackend.class)
public class MpsCollectives extends DeviceCollectives {

    private final MetalDriver driver;

    /** Creates the backend over the Metal driver. */
    @Activate
    public MpsCollectives(@Reference MetalDriver driver) {
        super(MpsBackend.TYPE, "nccl");
        this.driver = driver;
    }

    @Override
    protected long externalCorrelation(int device) {
        return driver.externalCorrelation(device);
    }

    @Override
    protected void run(int device, long externalCorrelation, CollectiveInfo info, Runnable transfer) {
        driver.runCollective(device, externalCorrelation, MetalRecords.DISPATCH, name() + ":" + info.scopeName(),
                info.kernelArgs(), transfer);
    }
}
