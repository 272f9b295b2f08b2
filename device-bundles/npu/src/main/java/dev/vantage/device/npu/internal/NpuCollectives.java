package dev.vantage.device.npu.internal;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import dev.vantage.device.kit.DeviceCollectives;
import dev.vantage.device.npu.driver.NpuDriver;
import dev.vantage.tensor.distributed.CollectiveBackend;
import dev.vantage.tensor.distributed.CollectiveInfo;

/**
 * HCCL for the NPU: a collective on NPU tensors runs as an HCCL task on the device's communication stream, named as
 * torch_npu's traces name them ({@code hcom_allReduce__<seq>_0_1}) and carrying the collective's arguments as torch
 * copies them onto its communication kernels, launched ({@code HcclAllReduce}) from the op that called the
 * collective ({@code record_param_comms}), so the profile links the two and shows the communication overlapping
 * compute. The data moves over the process group's host ring, staged through host copies.
 */
@Component(service = CollectiveBackend.class)
public class NpuCollectives extends DeviceCollectives {

    private final NpuDriver driver;

    /** Creates the backend over the NPU driver. */
    @Activate
    public NpuCollectives(@Reference NpuDriver driver) {
        super(NpuBackend.TYPE, "hccl");
        this.driver = driver;
    }

    @Override
    protected long externalCorrelation(int device) {
        return driver.externalCorrelation(device);
    }

    @Override
    protected void run(int device, long externalCorrelation, CollectiveInfo info, Runnable transfer) {
        String hcom = hcom(info.collective());
        driver.runCollective(device, externalCorrelation, "Hccl" + Character.toUpperCase(hcom.charAt(0))
                + hcom.substring(1), "hcom_" + hcom + "__" + info.sequenceNumber() + "_0_1", info.kernelArgs(),
                transfer);
    }

    /** HCCL's name of a collective: {@code allReduce}, {@code broadcast}, {@code allGather}, {@code reduceScatter}. */
    static String hcom(String collective) {
        return switch (collective) {
            case "allreduce", "barrier" -> "allReduce";
            case "allgather" -> "allGather";
            case "reduce_scatter" -> "reduceScatter";
            default -> collective;
        };
    }
}
