package dev.vantage.cli;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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

    @Option(names = "--model", paramLabel = "FILE", converter = Converters.AbsolutePath.class,
            description = "the model a model workload runs, such as an .onnx file for 'onnx'")
    private Path model;

    @Option(names = "--seq-len", paramLabel = "N", converter = Converters.Positive.class,
            description = "sequence length of a text model's inputs (default: the workload's own)")
    private int sequenceLength;

    @Option(names = "--input", paramLabel = "NAME=DIMS", arity = "1..*", converter = Converters.InputShape.class,
            description = "shape of a model input, such as input_ids=1x128 (or 1,128); repeatable")
    private List<Converters.NamedShape> inputs = List.of();

    /** The flags above that only a served workload uses, for {@code serve}'s "needs --workload" check. */
    static final List<String> FLAGS = List.of("--device", "--seed", "--batch-size", "--threads", "--model",
            "--seq-len", "--input");

    /**
     * Checks what a converter cannot see alone: an input named twice.
     *
     * @throws UsageException naming the input
     */
    void check() throws UsageException {
        java.util.Set<String> names = new java.util.HashSet<>();
        for (Converters.NamedShape shape : inputs) {
            if (!names.add(shape.name())) {
                throw new UsageException("--input " + shape.name() + " is given twice");
            }
        }
    }

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

    /** Returns the model file, absolute ({@code --model}), or null when none was given. */
    public Path model() {
        return model;
    }

    /** Returns the sequence length ({@code --seq-len}), or 0 for the workload's own. */
    public int sequenceLength() {
        return sequenceLength;
    }

    /**
     * Returns the input shapes by input name ({@code --input NAME=DIMS}), in the order given; empty when none were
     * given. Each call returns a new map of new arrays.
     */
    public Map<String, long[]> inputShapes() {
        Map<String, long[]> shapes = new LinkedHashMap<>();
        for (Converters.NamedShape shape : inputs) {
            shapes.put(shape.name(), shape.dims().clone());
        }
        return Collections.unmodifiableMap(shapes);
    }
}
