package dev.vantage.tensor.workload;

import dev.vantage.tensor.Device;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A runnable model, registered as a service and run by {@code vantage run <name>}. A workload does its steps
 * through the tensor runtime and calls {@link WorkloadContext#step()} after each one, which moves the profile's
 * schedule on when profiling.
 */
@ConsumerType
public interface Workload {

    /** Returns the name users run it by, such as {@code matmul}; lower case, digits and dashes. */
    String name();

    /** Returns a one-line description. */
    String description();

    /**
     * Runs the workload.
     *
     * @param context steps, seed, device and output
     * @throws IllegalArgumentException if the context asks for something the workload cannot do, such as a device
     *     without a backend; the message names it
     */
    void run(WorkloadContext context);

    /**
     * Returns whether the workload can run on a device; a command line asks before it starts any work. By default a
     * workload runs on every device.
     */
    default boolean supports(Device device) {
        return true;
    }
}
