package dev.vantage.verbs.internal;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicLong;

import dev.vantage.cli.WorkloadOptions;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.workload.Workload;

/**
 * {@code vantage serve --workload W}: a workload run as a long-running service, step after step until the platform
 * stops, so that it can be profiled on demand without a restart. Each step is marked on the on-demand profiler
 * (when the profiler core runs), which is what iteration windows and step-aligned starts count; nothing else is
 * recorded or printed while no capture runs.
 */
final class Serve {

    private final Platform platform;
    private final Workload workload;
    private final WorkloadOptions options;
    private final Device device;
    private final PrintStream err;
    private final AtomicLong steps = new AtomicLong();
    private volatile boolean stopping;
    private Thread thread;

    Serve(Platform platform, Workload workload, WorkloadOptions options, Device device, PrintStream err) {
        this.platform = platform;
        this.workload = workload;
        this.options = options;
        this.device = device;
        this.err = err;
    }

    /** Starts serving on a thread of its own. */
    void start() {
        thread = new Thread(this::serve, "vantage-serve-" + workload.name());
        thread.setDaemon(true);
        thread.start();
    }

    /** Checks the workload's own inputs (a model file, its shapes) before serving starts. */
    void check() {
        workload.check(context(new PrintStream(OutputStream.nullOutputStream(), true)));
    }

    private void serve() {
        PrintStream quiet = new PrintStream(OutputStream.nullOutputStream(), true);
        try {
            workload.run(context(quiet));
        } catch (CancellationException e) {
            // the platform stopped it
        } catch (RuntimeException | Error e) {
            if (!stopping) {
                err.println("vantage: serving " + workload.name() + " failed after " + steps.get() + " steps: " + e);
            }
        }
    }

    private StepContext context(PrintStream quiet) {
        // no step count of its own: a served workload steps until the platform stops it
        return new StepContext(options, Integer.MAX_VALUE, "", false, device, quiet, platform, done -> {
            if (stopping) {
                throw new CancellationException("the platform is stopping");
            }
            steps.set(done);
        });
    }

    /** Stops serving at the next step boundary and waits for it, at most {@code millis}. */
    void stop(long millis) throws InterruptedException {
        stopping = true;
        Thread t = thread;
        if (t != null) {
            t.join(millis);
        }
    }
}
