package dev.vantage.tensor.workload;

import java.util.EnumSet;
import java.util.Set;

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

    /**
     * Returns the flags this workload takes; the command line refuses the others before any work, naming the flag
     * and the workload. By default all of them: a workload written before this method checks its context itself.
     *
     * @return the flags, never null
     */
    default Set<RunFlag> flags() {
        return EnumSet.allOf(RunFlag.class);
    }

    /**
     * Returns the heap a run with these sizes certainly needs, in bytes: what the workload allocates for them at
     * least (its batches on every thread, say), not a forecast of its peak. The command line refuses a run whose
     * figure this JVM's maximum heap cannot hold, before any work, naming both. {@link Long#MAX_VALUE} means that no
     * heap can (a batch beyond the largest array, say); 0, the default, that the workload does not say.
     *
     * @param batchSize the batch size asked for, or 0 for the workload's own
     * @param threads the threads asked for, or 0 for the workload's own
     */
    default long minimumHeapBytes(int batchSize, int threads) {
        return 0;
    }
}
