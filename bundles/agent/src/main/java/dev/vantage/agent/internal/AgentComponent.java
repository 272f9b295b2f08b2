package dev.vantage.agent.internal;

import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

import dev.vantage.agent.bootstrap.Bridge;
import dev.vantage.agent.bootstrap.Hooks;
import dev.vantage.agent.bootstrap.Scope;
import dev.vantage.cli.AgentOptions;
import dev.vantage.cli.UsageException;
import dev.vantage.device.onnxruntime.OrtProfiling;
import dev.vantage.profiler.api.OnDemandProfiler;
import dev.vantage.profiler.api.Profiler;

/**
 * The agent inside the platform it boots in an application: the {@link Hooks} the calls woven into the
 * application's classes reach, installed in the {@link Bridge} at activation. The application's ONNX Runtime
 * sessions go to {@link OrtHooks}, its library calls and steps to {@link Calls}; each step is marked on the
 * on-demand profiler (so that {@code vantage profile <pid> start} windows align with them) and moves a capture
 * started with the application ({@link StartupCapture}).
 *
 * <p>The agent's options come from the framework property {@value #OPTIONS}, which the agent's host sets from
 * {@code -javaagent:vantage-agent.jar=...} after checking them. What only the platform can check (activities,
 * exporters, the sort key) is checked here; a bad one is one line on standard error and no capture starts, the
 * application running unprofiled (it can still be profiled on demand).
 *
 * <p>Lifecycle: activation starts the start-up capture, then installs the hooks, so that the sessions the
 * application created while the platform booted join it; deactivation (the application exits, or the bundle leaves)
 * removes the hooks and ends the capture, writing what it recorded.
 */
@Component(service = Hooks.class, immediate = true)
public class AgentComponent implements Hooks {

    /** The framework property holding the agent's options. */
    static final String OPTIONS = "vantage.agent.options";
    /** How long deactivation waits for a capture's files. */
    private static final long WRITE_MILLIS = 30_000;

    @Reference
    private Profiler profiler;

    @Reference
    private OnDemandProfiler onDemand;

    @Reference
    private OrtProfiling ort;

    private Calls calls;
    private OrtHooks sessions;
    private volatile StartupCapture capture;

    /** For DS. */
    public AgentComponent() {
    }

    /** Over given services, for tests that run without a framework; call {@link #activate(String)}. */
    AgentComponent(Profiler profiler, OnDemandProfiler onDemand, OrtProfiling ort) {
        this.profiler = profiler;
        this.onDemand = onDemand;
        this.ort = ort;
    }

    @Activate
    void activate(BundleContext context) {
        activate(context.getProperty(OPTIONS));
    }

    /** Starts the capture asked for and installs the hooks. */
    void activate(String options) {
        AgentOptions o;
        try {
            o = AgentOptions.parse(options, System.getenv());
        } catch (UsageException e) {
            // the host refused these before booting the platform; here only when the bundle was deployed by hand
            System.err.println("vantage-agent: " + e.getMessage() + "; the application runs unprofiled");
            Bridge.release();
            return;
        }
        calls = new Calls(!o.steps().isEmpty(), this::stepped);
        sessions = new OrtHooks(ort, calls);
        if (o.start() == AgentOptions.Start.STARTUP) {
            try {
                StartupCapture c = new StartupCapture(profiler, o, System.err);
                c.start();
                capture = c;
            } catch (IllegalArgumentException | IllegalStateException e) {
                System.err.println("vantage-agent: " + e.getMessage() + "; the application runs unprofiled");
            }
        }
        Bridge.install(this);
    }

    @Deactivate
    void deactivate() {
        Bridge.uninstall(this);
        StartupCapture c = capture;
        capture = null;
        if (c != null) {
            c.endAndWait("the platform stops", WRITE_MILLIS);
        }
    }

    @Override
    public void exiting() {
        StartupCapture c = capture;
        capture = null;
        if (c != null) {
            c.endAndWait("the application exits", WRITE_MILLIS);
        }
        if (onDemand.status().startsWith("recording")) {
            try {
                // an on-demand capture under way is written too
                System.err.println("vantage-agent: the application exits; the on-demand capture wrote "
                        + onDemand.stop().replace('\n', ' '));
            } catch (IllegalStateException e) {
                // ended meanwhile, or its files could not all be written (the on-demand profiler logged which)
            }
        }
    }

    /** A step of the application ended. */
    private void stepped() {
        onDemand.step();
        StartupCapture c = capture;
        if (c != null) {
            c.step();
        }
    }

    /** Returns the capture started with the application, or null; for tests. */
    StartupCapture capture() {
        return capture;
    }

    @Override
    public void sessionCreated(Object session, Object[] arguments, String creator) {
        sessions.created(session, arguments, creator);
    }

    @Override
    public void sessionClosed(Object session) {
        sessions.closed(session);
    }

    @Override
    public Scope runEntered(Object session, String method, Object[] arguments) {
        return sessions.entered(session, method, arguments);
    }

    @Override
    public Scope callEntered(String name, int family, Object target) {
        return calls.entered(name, family, target);
    }
}
