package dev.vantage.verbs.internal;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.ToIntFunction;

import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

import dev.vantage.profiler.api.Profiler;
import dev.vantage.tensor.workload.Workload;

/**
 * The command-line verbs as Gogo shell commands: {@code vantage:bundles}, {@code vantage:devices},
 * {@code vantage:exporters}, {@code vantage:workloads}, and {@code vantage:run} with the flags of {@code vantage run},
 * which runs (and profiles) a workload inside the running platform, on devices deployed into it; {@code exit} stops
 * the platform.
 */
@Component(service = GogoCommands.class, property = {
    "osgi.command.scope=vantage",
    "osgi.command.function=bundles",
    "osgi.command.function=devices",
    "osgi.command.function=exporters",
    "osgi.command.function=workloads",
    "osgi.command.function=run",
    "osgi.command.function=exit"
})
public class GogoCommands {

    // optional and dynamic: a profiler core that is updated or reconfigured must not restart the command line
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile Profiler profiler;

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    private volatile List<Workload> workloads;

    private OsgiPlatform platform;

    private BundleContext context;

    @Activate
    void activate(BundleContext context) {
        this.context = context;
        platform = new OsgiPlatform(context, () -> profiler, () -> workloads);
    }

    /**
     * Stops the platform, as {@code stop 0} does: what a user types to leave the shell. (Gogo's own {@code exit}
     * wants an exit code and fails without one.)
     */
    public String exit() throws org.osgi.framework.BundleException {
        context.getBundle(0).stop();
        return "stopping the platform";
    }

    /** Lists the bundles. */
    public String bundles() {
        return capture(Verbs::bundles);
    }

    /** Lists the device backends. */
    public String devices() {
        return capture(Verbs::devices);
    }

    /** Lists the exporters. */
    public String exporters() {
        return capture(Verbs::exporters);
    }

    /** Lists the workloads. */
    public String workloads() {
        return capture(Verbs::workloads);
    }

    /**
     * Runs a workload as {@code vantage run} does, with the same flags (the same command tree parses them), and returns
     * what it printed: the op table, where the traces went, the help asked for, or the one line that names a bad
     * flag.
     */
    public String run(String... args) {
        List<String> command = new java.util.ArrayList<>();
        command.add("run");
        command.addAll(List.of(args));
        return capture(verbs -> verbs.execute(command));
    }

    private String capture(ToIntFunction<Verbs> verb) {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        try (PrintStream ps = new PrintStream(buffer, true, StandardCharsets.UTF_8)) {
            verb.applyAsInt(new Verbs(platform, ps, ps, System.getenv()));
        }
        return buffer.toString(StandardCharsets.UTF_8);
    }
}
