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

    /**
     * Checks, before any work starts, that the workload can do what the context asks: a command line calls it
     * before it starts a profile or a step, and refuses the run in one line with the exception's message. By
     * default it accepts every context; a workload that reads a model ({@link WorkloadContext#model()}) checks
     * here that the file exists, loads, and takes the shapes asked for.
     *
     * @param context what the run will ask; {@link WorkloadContext#step()} must not be called from here
     * @throws IllegalArgumentException if the run cannot go ahead; the message names the value at fault
     * @since 1.4
     */
    default void check(WorkloadContext context) {
    }
}
