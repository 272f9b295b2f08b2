package dev.vantage.shell.internal;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicLong;

import dev.vantage.tensor.Device;
import dev.vantage.tensor.workload.Workload;
import dev.vantage.tensor.workload.WorkloadContext;

/**
 * {@code vantage serve --workload W}: a workload run as a long-running service, step after step until the platform
 * stops, so that it can be profiled on demand without a restart. Each step is marked on the on-demand profiler
 * (when the profiler core runs), which is what iteration windows and step-aligned starts count; nothing else is
 * recorded or printed while no capture runs.
 */
final class Serve {

    static final String HELP = String.join("\n",
            "usage: vantage serve [--workload NAME [--device TYPE] [--threads N] [--batch-size N] [--seed N]",
            "                     [--model FILE] [--seq-len N] [--input NAME=DIMS ...]]",
            "                     [--distribution full|minimal] [--deploy-dir DIR] [--allow-shared-deploy-dir]",
            "",
            "Runs the platform until interrupted (Ctrl-C). A bundle jar copied into the deploy directory (default",
            "<distribution>/deploy) is installed and started, a removed one uninstalled; a <pid>.cfg file",
            "configures a component, and dev.vantage.profiler.ondemand.cfg starts an on-demand capture. Prints a",
            "line whenever a hook, device, allocator or exporter service registers or unregisters.",
            "",
            "With --workload, it also runs that workload step after step, as a service would serve requests,",
            "until the platform stops; profile it while it runs with 'vantage profile <pid> start'.",
            "",
            "A deployed jar runs with the platform's rights, so serve refuses a deploy directory that another user",
            "owns or can write to; --allow-shared-deploy-dir runs anyway, with a warning.",
            "");

    /** The flags of {@code serve}. */
    static final class Options {
        String workload;
        String device = "cpu";
        int threads;
        int batchSize;
        long seed;
        java.nio.file.Path model;
        int seqLen;
        java.util.Map<String, long[]> inputs = new java.util.LinkedHashMap<>();

        static Options parse(List<String> args) throws UsageException {
            Options o = new Options();
            for (int i = 0; i < args.size(); i++) {
                String arg = args.get(i);
                switch (arg) {
                    case "--workload" -> o.workload = value(args, ++i, arg);
                    case "--device" -> o.device = value(args, ++i, arg);
                    case "--threads" -> o.threads = positive(arg, value(args, ++i, arg));
                    case "--batch-size" -> o.batchSize = positive(arg, value(args, ++i, arg));
                    case "--model" -> o.model = RunOptions.path(arg, value(args, ++i, arg));
                    case "--seq-len" -> o.seqLen = positive(arg, value(args, ++i, arg));
                    case "--input" -> {
                        int from = ++i;
                        for (; i < args.size() && !args.get(i).startsWith("--"); i++) {
                            RunOptions.inputShape(o.inputs, args.get(i));
                        }
                        if (i == from) {
                            throw new UsageException("--input needs at least one value");
                        }
                        i--;
                    }
                    case "--seed" -> {
                        String v = value(args, ++i, arg);
                        try {
                            o.seed = Long.parseLong(v);
                        } catch (NumberFormatException e) {
                            throw new UsageException("--seed must be a whole number, not '" + v + "'");
                        }
                    }
                    default -> throw new UsageException("unknown " + (arg.startsWith("-") ? "flag" : "argument")
                            + " '" + arg + "' for 'serve'; see 'vantage serve --help'");
                }
            }
            if (o.workload == null && args.stream().anyMatch(a -> !a.equals("--workload") && a.startsWith("--"))) {
                throw new UsageException("--device, --threads, --batch-size, --seed, --model, --seq-len and --input"
                        + " need --workload");
            }
            return o;
        }

        private static String value(List<String> args, int i, String flag) throws UsageException {
            if (i >= args.size() || args.get(i).startsWith("--")) {
                throw new UsageException(flag + " needs a value");
            }
            return args.get(i);
        }

        private static int positive(String flag, String v) throws UsageException {
            try {
                int n = Integer.parseInt(v);
                if (n >= 1) {
                    return n;
                }
            } catch (NumberFormatException e) {
                // refused below
            }
            throw new UsageException(flag + " must be a whole number of 1 or more, not '" + v + "'");
        }
    }

    private final Platform platform;
    private final Workload workload;
    private final Options options;
    private final Device device;
    private final PrintStream err;
    private final AtomicLong steps = new AtomicLong();
    private volatile boolean stopping;
    private Thread thread;

    Serve(Platform platform, Workload workload, Options options, Device device, PrintStream err) {
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

    private WorkloadContext context(PrintStream quiet) {
        return new WorkloadContext() {
            @Override
            public int steps() {
                return Integer.MAX_VALUE;
            }

            @Override
            public long seed() {
                return options.seed;
            }

            @Override
            public int batchSize() {
                return options.batchSize;
            }

            @Override
            public int threads() {
                return options.threads;
            }

            @Override
            public java.nio.file.Path model() {
                return options.model;
            }

            @Override
            public int sequenceLength() {
                return options.seqLen;
            }

            @Override
            public java.util.Map<String, long[]> inputShapes() {
                return options.inputs;
            }

            @Override
            public Device device() {
                return device;
            }

            @Override
            public PrintStream out() {
                return quiet;
            }

            @Override
            public void step() {
                if (stopping) {
                    throw new CancellationException("the platform is stopping");
                }
                steps.incrementAndGet();
                platform.markStep();
            }
        };
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
