package dev.vantage.device.kit;

import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.distributed.CollectiveBackend;
import dev.vantage.tensor.distributed.CollectiveBackends;
import dev.vantage.tensor.distributed.CollectiveInfo;

/**
 * What a device bundle's collective backend does the same way as every other: it stages tensors through host
 * copies for the process group's ring, captures the calling op's external correlation id on the thread that calls
 * the collective (inside its {@code record_param_comms} scope), and runs each transfer as device work linked to
 * that op. A subclass names its library and its kernels and hands the transfer to its driver.
 */
public abstract class DeviceCollectives implements CollectiveBackend {

    private final String deviceType;
    private final String name;

    /**
     * Creates the backend of a device type.
     *
     * @param deviceType the device type it serves, such as {@code npu}
     * @param name the library's name, the prefix of its scopes ({@code hccl}, {@code nccl})
     */
    protected DeviceCollectives(String deviceType, String name) {
        this.deviceType = deviceType;
        this.name = name;
    }

    @Override
    public final String deviceType() {
        return deviceType;
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public Tensor toHost(Tensor t) {
        return CollectiveBackends.stageToHost(t);
    }

    @Override
    public void fromHost(Tensor host, Tensor t) {
        CollectiveBackends.stageFromHost(host, t);
    }

    /** The op calling the collective: its device index and external correlation id (-1 for none). */
    private record Caller(int device, long correlation) {
    }

    @Override
    public final Object capture(Tensor t) {
        int device = t.device().index();
        return new Caller(device, externalCorrelation(device));
    }

    @Override
    public final void execute(CollectiveInfo info, Object captured, Runnable transfer) {
        if (!(captured instanceof Caller caller)) {
            transfer.run();
            return;
        }
        run(caller.device(), caller.correlation(), info, transfer);
    }

    /** Returns the external correlation id of the op running on the calling thread for a device, or -1. */
    protected abstract long externalCorrelation(int device);

    /**
     * Runs one collective's transfer on a device as communication work, named as the library names it and carrying
     * {@link CollectiveInfo#kernelArgs()}, linked to the calling op through {@code externalCorrelation}; called on
     * the group's communication thread. Rethrows what the transfer threw.
     */
    protected abstract void run(int device, long externalCorrelation, CollectiveInfo info, Runnable transfer);
}
