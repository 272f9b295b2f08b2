package dev.vantage.verbs.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

import dev.vantage.cli.CaptureOptions;
import dev.vantage.cli.ShellCommands;
import dev.vantage.cli.UsageException;
import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.api.CaptureRequest;
import dev.vantage.profiler.api.OnDemandProfiler;
import dev.vantage.profiler.api.SortKey;
import dev.vantage.profiler.api.TableOptions;

/**
 * The on-demand profiler from the Gogo shell: {@code profiler:start [--duration 10s | --iterations N]
 * [--activities A..] [--export F..] [--dir DIR] [--name NAME]}, {@code profiler:step}, {@code profiler:stop},
 * {@code profiler:status} and {@code profiler:table [--sort-by KEY] [--limit N]}. Each returns one text the shell
 * prints; a bad flag or a refused start is that text, never a stack trace.
 *
 * <p>Felix's shell has {@code start} and {@code stop} too ({@code felix:start}, {@code felix:stop}), and Gogo may
 * resolve an unscoped {@code stop 0} to either. So {@code start} and {@code stop} given bundle ids or names (no
 * {@code --} flag) do what Felix's do: {@code stop 0} still stops the platform.
 */
@Component(service = ProfilerCommands.class, property = {
    "osgi.command.scope=profiler",
    "osgi.command.function=start",
    "osgi.command.function=step",
    "osgi.command.function=stop",
    "osgi.command.function=status",
    "osgi.command.function=table"
})
public class ProfilerCommands {

    private BundleContext context;

    @Activate
    void activate(BundleContext bundleContext) {
        this.context = bundleContext;
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile OnDemandProfiler onDemand;

    private OnDemandProfiler onDemand() {
        OnDemandProfiler p = onDemand;
        if (p == null) {
            throw new IllegalStateException("the profiler core is not running");
        }
        return p;
    }

    /** Starts a capture; see the class comment for the flags. */
    public String start(String... args) throws BundleException {
        if (bundleArguments(args)) {
            for (Bundle b : bundles(args)) {
                b.start();
            }
            return "";
        }
        try {
            CaptureRequest request = request(List.of(args));
            return onDemand().start(request);
        } catch (UsageException | IllegalArgumentException | IllegalStateException e) {
            return "profiler:start: " + e.getMessage();
        }
    }

    /** Marks a step boundary, for a workload driven from the shell. */
    public String step() {
        try {
            onDemand().step();
            return "";
        } catch (IllegalStateException e) {
            return "profiler:step: " + e.getMessage();
        }
    }

    /** Stops the capture and lists the files written; with bundle ids or names, stops those bundles. */
    public String stop(String... args) throws BundleException {
        if (bundleArguments(args)) {
            for (Bundle b : bundles(args)) {
                b.stop();
            }
            return "";
        }
        if (args.length > 0) {
            return "profiler:stop: takes no flags";
        }
        try {
            return onDemand().stop();
        } catch (IllegalStateException e) {
            return "profiler:stop: " + e.getMessage();
        }
    }

    /** Whether arguments are Felix's (bundle ids or names, and its {@code -t} option), not the profiler's flags. */
    static boolean bundleArguments(String[] args) {
        return args.length > 0 && java.util.Arrays.stream(args).noneMatch(a -> a.startsWith("--"));
    }

    private List<Bundle> bundles(String[] args) {
        List<Bundle> found = new ArrayList<>();
        for (String a : args) {
            if (a.equals("-t") || a.equals("-transient")) {
                continue;
            }
            Bundle match = null;
            for (Bundle b : context.getBundles()) {
                if (a.equals(Long.toString(b.getBundleId())) || a.equals(b.getSymbolicName())
                        || a.equals(b.getLocation())) {
                    match = b;
                }
            }
            if (match == null) {
                throw new IllegalArgumentException("no bundle " + a);
            }
            found.add(match);
        }
        return found;
    }

    /** The state of the on-demand profiler. */
    public String status() {
        try {
            return onDemand().status();
        } catch (IllegalStateException e) {
            return "profiler:status: " + e.getMessage();
        }
    }

    /** The last capture's table: {@code --sort-by KEY} (torch's keys), {@code --limit N} (-1 for all). */
    public String table(String... args) {
        try {
            ShellCommands.Table t = ShellCommands.parse(ShellCommands.Table.class, List.of(args));
            TableOptions options = new TableOptions(SortKey.parse(t.sortBy()), t.limit(), false, false);
            return onDemand().table(options);
        } catch (UsageException | IllegalArgumentException | IllegalStateException e) {
            return "profiler:table: " + e.getMessage();
        }
    }

    /** Parses {@code profiler:start}'s flags (those of {@code vantage profile <pid> start}) into a request. */
    static CaptureRequest request(List<String> args) throws UsageException {
        CaptureOptions c = ShellCommands.parse(ShellCommands.Start.class, args).capture();
        Set<Activity> activities = new TreeSet<>();
        for (String a : c.activities()) {
            activities.add(Activity.parse(a));
        }
        return new CaptureRequest(c.durationMillis(), c.iterations(), 0, activities, c.exports(), c.dir(), c.name(),
                "shell", "the Gogo shell (user " + System.getProperty("user.name") + ")");
    }
}
