package dev.vantage.verbs.internal;

import java.util.List;

import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleEvent;
import org.osgi.framework.SynchronousBundleListener;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

import dev.vantage.cli.LaunchedCommand;
import dev.vantage.profiler.api.Profiler;
import dev.vantage.tensor.workload.Workload;

/**
 * Runs the command the launcher was started with. The launcher registers a {@link LaunchedCommand} (property
 * {@code vantage.launcher=command}) once every bundle has started: the command line it parsed and checked, as the
 * parsed object itself, since the launcher shares the command tree's package with the platform. This component runs
 * the verb on its own thread and hands the exit code back, after which the launcher stops the platform. For
 * {@code serve} and {@code shell} it checks what only the platform can check as for any verb (a refusal is an exit
 * code like any other), then announces plugin services and answers {@link LaunchedCommand#KEEP_RUNNING}.
 */
@Component(service = {}, immediate = true)
public class CommandComponent {

    // optional and dynamic: a profiler core that is updated or reconfigured must not restart the command line
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile Profiler profiler;

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    private volatile List<Workload> workloads;

    private LaunchedCommand launched;
    private ServiceAnnouncer announcer;
    private Thread worker;
    private Verbs verbs;
    private BundleContext context;
    private SynchronousBundleListener frameworkStopping;

    @Reference(target = "(vantage.launcher=command)")
    void bindLauncher(LaunchedCommand command) {
        this.launched = command;
    }

    @Activate
    void activate(BundleContext context) {
        // a progress line only where a person watches: standard input and output both on a terminal
        verbs = new Verbs(new OsgiPlatform(context, () -> profiler, () -> workloads), System.out, System.err,
                System.getenv(), System.console() != null);
        worker = new Thread(() -> {
            int code;
            try {
                code = verbs.execute(launched.command());
            } catch (RuntimeException | Error e) {
                System.err.println("vantage: " + e);
                code = 1;
            }
            // the board's output is its URL: the devices and exporters that register are not what it serves
            if (code == LaunchedCommand.KEEP_RUNNING && !launched.command().name().equals("board")) {
                announcer = new ServiceAnnouncer(context, System.out);
                announcer.open();
            }
            // the launcher waits for this answer: an exit code, or that the platform is up and keeps running
            launched.exit(code);
        }, "vantage-command");
        worker.start();
        // the framework stops bundles one by one, the devices' and the tensor runtime's possibly before this one: a
        // served workload stops at its next step as soon as the framework starts stopping, before anything it runs
        // on goes away (else Ctrl-C would end it with 'no backend for device cpu:0')
        this.context = context;
        frameworkStopping = event -> {
            if (event.getType() == BundleEvent.STOPPING && event.getBundle().getBundleId() == 0) {
                try {
                    verbs.close();
                    // a run ends at its next step and writes what it recorded before its devices go away
                    Thread w = worker;
                    if (w != null && w != Thread.currentThread()) {
                        w.join(10_000);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        context.addBundleListener(frameworkStopping);
    }

    @Deactivate
    void deactivate() throws InterruptedException {
        try {
            context.removeBundleListener(frameworkStopping);
        } catch (IllegalStateException e) {
            // the framework is already gone
        }
        // a served workload stops at its next step, before the profiler core it reports steps to goes away
        verbs.close();
        worker.join(5_000);
        ServiceAnnouncer a = announcer;
        if (a != null) {
            a.close();
        }
    }
}
