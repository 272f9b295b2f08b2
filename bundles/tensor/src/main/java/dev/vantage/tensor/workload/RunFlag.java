package dev.vantage.tensor.workload;

/**
 * A flag of {@code vantage run} (and {@code serve --workload}) that only some workloads take. A workload lists the
 * ones it takes ({@link Workload#flags()}), and the command line refuses the others, naming the flag and the
 * workload, before any work. The flags every workload takes ({@code --steps}, {@code --seed}, {@code --device}) are
 * not here.
 */
public enum RunFlag {

    /** {@code --batch-size}: the samples of a step ({@link WorkloadContext#batchSize()}). */
    BATCH_SIZE("--batch-size"),

    /** {@code --threads}: the threads that run a step at once ({@link WorkloadContext#threads()}). */
    THREADS("--threads"),

    /** {@code --optimizer}: the optimizer of a training workload ({@link WorkloadContext#optimizer()}). */
    OPTIMIZER("--optimizer"),

    /** {@code --ddp}: data-parallel training over the ranks of a launch ({@link WorkloadContext#ddp()}). */
    DDP("--ddp"),

    /**
     * {@code --model}: the model a model workload runs ({@link WorkloadContext#model()}).
     *
     * @since 1.5
     */
    MODEL("--model"),

    /**
     * {@code --seq-len}: the sequence length of a text model's inputs ({@link WorkloadContext#sequenceLength()}).
     *
     * @since 1.5
     */
    SEQUENCE_LENGTH("--seq-len"),

    /**
     * {@code --input NAME=DIMS}: the shape of a model input ({@link WorkloadContext#inputShapes()}).
     *
     * @since 1.5
     */
    INPUT("--input");

    private final String flag;

    RunFlag(String flag) {
        this.flag = flag;
    }

    /** Returns the flag as the command line spells it, such as {@code --batch-size}. */
    public String flag() {
        return flag;
    }
}
