package dev.vantage.cli;

import picocli.CommandLine.Option;

/** The flags that say how to run a workload, shared by {@code run} and {@code serve --workload}. */
public final class WorkloadOptions {

    /** The most threads a run's step takes ({@code --threads}): each is a JVM thread with a batch of its own. */
    public static final int MAX_THREADS = 1024;

    @Option(names = "--device", paramLabel = "TYPE", defaultValue = "cpu",
            description = "device to run on: cpu, or npu, spyre, mps or a plugin's when installed (default cpu);"
                    + " 'vantage devices' lists them")
    private String device;

    @Option(names = "--seed", paramLabel = "N", description = "seed for generated data and weights (default 0)")
    private long seed;

    @Option(names = "--batch-size", paramLabel = "N", converter = Converters.Positive.class,
            description = "samples per step (default: the workload's own)")
    private int batchSize;

    @Option(names = "--threads", paramLabel = "N", converter = Converters.Threads.class,
            description = "threads of a parallel workload such as parallel-infer, at most " + MAX_THREADS
                    + " (default: the workload's own)")
    private int threads;

    /** Returns the device as given, such as {@code cpu} or {@code npu:1}; {@code cpu} by default. */
    public String device() {
        return device;
    }

    /** Returns the seed, 0 by default. */
    public long seed() {
        return seed;
    }

    /** Returns the batch size, or 0 for the workload's own. */
    public int batchSize() {
        return batchSize;
    }

    /** Returns the threads, or 0 for the workload's own. */
    public int threads() {
        return threads;
    }
}
