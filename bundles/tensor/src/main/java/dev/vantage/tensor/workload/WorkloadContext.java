package dev.vantage.tensor.workload;

import java.io.PrintStream;

import org.osgi.annotation.versioning.ProviderType;

import dev.vantage.tensor.Device;

/** What a {@link Workload} is asked to do, and where it reports. Provided by whoever runs the workload. */
@ProviderType
public interface WorkloadContext {

    /**
     * Returns how many steps to run, 1 or more; {@link Integer#MAX_VALUE} when served, until {@link #step()} throws.
     * Nothing a workload allocates may grow with it.
     */
    int steps();

    /** Returns the seed for generated data and initial weights. */
    long seed();

    /** Returns the batch size the user asked for, or 0 for the workload's own default. */
    default int batchSize() {
        return 0;
    }

    /** Returns how many threads the user asked a parallel workload to use, or 0 for its own default. */
    default int threads() {
        return 0;
    }

    /** Returns the optimizer a training workload should use ({@code sgd} or {@code adam}), or the empty string for
     * its own default. */
    default String optimizer() {
        return "";
    }

    /**
     * Returns true when the user asked a training workload to train data-parallel ({@code --ddp}): the workload then
     * joins the process group the launcher describes in the environment ({@code RANK}, {@code WORLD_SIZE},
     * {@code MASTER_ADDR}, {@code MASTER_PORT}) and trains its shard of each batch. False by default.
     */
    default boolean ddp() {
        return false;
    }

    /**
     * Returns the model file the user asked a workload to run ({@code --model}), or null for none: a workload that
     * runs a model of the user's (an ONNX file) reads it from here.
     *
     * @since 1.4
     */
    default java.nio.file.Path model() {
        return null;
    }

    /**
     * Returns the sequence length the user asked for ({@code --seq-len}), or 0 for the workload's own default.
     *
     * @since 1.4
     */
    default int sequenceLength() {
        return 0;
    }

    /**
     * Returns the input shapes the user gave by input name ({@code --input NAME=DIMS}, such as
     * {@code input_ids=1x128}), in the order given; empty when none were given. The map and its arrays are the
     * caller's: a workload does not change them.
     *
     * @since 1.4
     */
    default java.util.Map<String, long[]> inputShapes() {
        return java.util.Map.of();
    }

    /** Returns the device to run on. */
    Device device();

    /** Returns where to print progress lines, such as {@code step 3 loss 0.412}. */
    PrintStream out();

    /** Marks the end of a step; moves the profile on when profiling. */
    void step();
}
