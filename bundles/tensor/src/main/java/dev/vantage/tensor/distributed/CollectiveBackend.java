package dev.vantage.tensor.distributed;

import org.osgi.annotation.versioning.ConsumerType;

import dev.vantage.tensor.Tensor;

/**
 * What a device bundle implements so that collectives can move its tensors, registered as a service (or installed
 * with {@link CollectiveBackends#install}). The ring itself runs over host sockets: a backend stages a device tensor
 * into a contiguous host tensor before a collective and writes the result back after it. A device without one gets
 * {@link CollectiveBackends#forDevice}'s default, which copies through {@code to(cpu)} and {@code copy_}.
 *
 * <p>Called on the group's communication thread.
 */
@ConsumerType
public interface CollectiveBackend {

    /** Returns the device type this backend serves, such as {@code npu}. */
    String deviceType();

    /**
     * Returns the name profiles show for its collectives, as torch's process group backends: {@code gloo} for the
     * CPU, {@code hccl} for an NPU.
     */
    String name();

    /**
     * Returns a contiguous float or int64 tensor on the host holding {@code t}'s values: a copy, or {@code t} itself
     * when it is one already (then collectives write it in place).
     */
    Tensor toHost(Tensor t);

    /** Writes the collective's result, in {@code host}, back into {@code t}; nothing to do when they are the same. */
    void fromHost(Tensor host, Tensor t);

    /**
     * Called on the thread that calls a collective, inside its {@code record_param_comms} scope: returns what the
     * backend needs later to link its device work to that op (such as the device runtime's external correlation
     * id on that thread), or null. By default null.
     */
    default Object capture(Tensor t) {
        return null;
    }

    /**
     * Runs a collective's transfer (staging, the ring, writing back) on the group's communication thread. By
     * default directly; a device with a communication stream runs it there as device work named as its vendor
     * names it, linked to the op through what {@link #capture} returned, so that the profile shows the
     * communication kernel on its stream, overlapping the compute streams.
     *
     * @throws DistributedException if the transfer failed, as thrown by it
     */
    default void execute(CollectiveInfo info, Object captured, Runnable transfer) {
        transfer.run();
    }
}
