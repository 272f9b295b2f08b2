package dev.vantage.verbs.internal;

import java.io.PrintStream;
import java.util.function.IntConsumer;

import dev.vantage.cli.WorkloadOptions;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.workload.WorkloadContext;

/**
 * What a workload sees, for {@code run} and {@code serve} alike: the settings of the command line and a step that
 * tells whoever counts steps. Each step is marked on the on-demand profiler (which iteration windows count), then
 * handed to {@code onStep} with the number of steps done so far.
 */
final class StepContext implements WorkloadContext {

    private final WorkloadOptions options;
    private final int steps;
    private final String optimizer;
    private final boolean ddp;
    private final Device device;
    private final PrintStream out;
    private final Platform platform;
    private final IntConsumer onStep;
    private int done;

    /**
     * @param steps the steps to run
     * @param optimizer the optimizer asked for, or the empty string
     * @param onStep called after each step with the steps done, from the workload's thread; it may throw to stop
     *     the workload
     */
    StepContext(WorkloadOptions options, int steps, String optimizer, boolean ddp, Device device, PrintStream out,
            Platform platform, IntConsumer onStep) {
        this.options = options;
        this.steps = steps;
        this.optimizer = optimizer;
        this.ddp = ddp;
        this.device = device;
        this.out = out;
        this.platform = platform;
        this.onStep = onStep;
    }

    @Override
    public int steps() {
        return steps;
    }

    @Override
    public long seed() {
        return options.seed();
    }

    @Override
    public int batchSize() {
        return options.batchSize();
    }

    @Override
    public String optimizer() {
        return optimizer;
    }

    @Override
    public int threads() {
        return options.threads();
    }

    @Override
    public boolean ddp() {
        return ddp;
    }

    @Override
    public java.nio.file.Path model() {
        return options.model();
    }

    @Override
    public int sequenceLength() {
        return options.sequenceLength();
    }

    @Override
    public java.util.Map<String, long[]> inputShapes() {
        return options.inputShapes();
    }

    @Override
    public Device device() {
        return device;
    }

    @Override
    public PrintStream out() {
        return out;
    }

    @Override
    public void step() {
        done++;
        onStep.accept(done);
        // a run can be profiled on demand too, by attaching: iteration windows count its steps
        platform.markStep();
    }
}
