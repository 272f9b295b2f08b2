package dev.vantage.cli;

import java.util.Map;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code vantage serve}: runs the platform until stopped, optionally serving a workload to profile on demand. */
@Command(name = "serve", description = "run the platform until interrupted, hot-deploying from the deploy directory;"
        + " with --workload, serve a workload to profile on demand",
        footer = {"", "A bundle jar copied into the deploy directory is installed and started, a removed one"
                + " uninstalled; a <pid>.cfg file configures a component, and dev.vantage.profiler.ondemand.cfg starts"
                + " an on-demand capture. A line is printed whenever a hook, device, allocator or exporter service"
                + " registers or unregisters. With --workload the workload runs step after step, as a service"
                + " serves requests, until the platform stops: profile it with 'vantage profile <pid> start'.",
                "A deployed jar runs with the platform's rights, so serve refuses a deploy directory that another"
                + " user owns or can write to (see --allow-shared-deploy-dir)."})
public final class ServeCommand implements Verb {

    @Spec
    private CommandSpec spec;

    @Option(names = "--workload", paramLabel = "NAME", description = "a workload to serve, such as parallel-infer")
    private String workload;

    @Mixin
    private WorkloadOptions run;

    @Mixin
    private PlatformOptions platform;

    @Override
    public Host host() {
        return Host.SERVICE;
    }

    @Override
    public void check(Map<String, String> env) throws UsageException {
        if (workload == null) {
            for (String flag : WorkloadOptions.FLAGS) {
                if (spec.commandLine().getParseResult().hasMatchedOption(flag)) {
                    throw new UsageException(flag + " needs --workload");
                }
            }
        }
        run.check();
    }

    /** Returns the workload to serve, or null to run the platform only. */
    public String workload() {
        return workload;
    }

    /** Returns how the workload runs. */
    public WorkloadOptions run() {
        return run;
    }

    /** Returns the deploy directory and JMX flags. */
    public PlatformOptions platform() {
        return platform;
    }
}
