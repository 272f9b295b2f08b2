package dev.vantage.device.npu.internal;

import java.util.LinkedHashMap;
import java.util.Map;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import dev.vantage.device.npu.driver.NpuDriver;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.distributed.CollectiveBackend;
import dev.vantage.tensor.distributed.CollectiveBackends;
import dev.vantage.tensor.distributed.CollectiveInfo;

/**
 * HCCL for the NPU: a collective on NPU tensors runs as an HCCL task on the device's communication stream, named as
 * torch_npu's traces name them ({@code hcom_allReduce__<seq>_0_1}) and carrying the collective's arguments as torch
 * copies them onto its communication kernels, launched from the op that called the collective
 * ({@code record_param_comms}), so the profile links the two and shows the communication overlapping compute. The
 * data moves over the process group's host ring, staged through host copies by the default backend's
 * {@link CollectiveBackends#stageToHost} and {@link CollectiveBackends#stageFromHost}.
 */
@Component(service = CollectiveBackend.class)
public class NpuCollectives implements CollectiveBackend {

    private final NpuDriver driver;

    /** Creates the backend over the NPU driver. */
    @Activate
    public NpuCollectives(@Reference NpuDriver driver) {
        this.driver = driver;
    }

    @Override
    public String deviceType() {
        return NpuBackend.TYPE;
    }

    @Override
    public String name() {
        return "hccl";
    }

    @Override
    public Tensor toHost(Tensor t) {
        return CollectiveBackends.stageToHost(t);
    }

    @Override
    public void fromHost(Tensor host, Tensor t) {
        CollectiveBackends.stageFromHost(host, t);
    }

    /** The op calling the collective: its device index and external correlation id. */
    private record Caller(int device, long correlation) {
    }

    @Override
    public Object capture(Tensor t) {
        int device = t.device().index();
        return new Caller(device, driver.externalCorrelation(device));
    }

    @Override
    public void execute(CollectiveInfo info, Object captured, Runnable transfer) {
        if (!(captured instanceof Caller caller)) {
            transfer.run();
            return;
        }
        Map<String, String> args = new LinkedHashMap<>();
        args.put("Collective name", info.collective());
        args.put("In msg nelems", Long.toString(info.inNelems()));
        args.put("Out msg nelems", Long.toString(info.outNelems()));
        args.put("Group size", Integer.toString(info.groupSize()));
        args.put("dtype", info.dtype());
        args.put("Process Group Name", info.processGroupName());
        args.put("Process Group Description", info.processGroupDescription());
        args.put("Process Group Ranks", info.processGroupRanks());
        driver.runCollective(caller.device(), caller.correlation(), "Hccl" + capitalized(hcom(info.collective())),
                "hcom_" + hcom(info.collective()) + "__" + info.sequenceNumber() + "_0_1", args, transfer);
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

    private static String capitalized(String s) {
        return Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }
}
