package dev.vantage.agent.host;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import java.util.stream.Stream;

import javax.management.JMException;
import javax.management.MBeanException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.RuntimeErrorException;
import javax.management.RuntimeMBeanException;
import javax.management.StandardMBean;

import dev.vantage.launcher.platform.EmbeddedPlatform;

/**
 * The agent's platform, booted when it is first needed: at once for a capture at start-up; on demand, only when
 * someone asks for it. Until then an application pays nothing for it but the woven calls' checks: no framework, no
 * threads but two daemons that wait. It is first needed when
 *
 * <ul>
 *   <li>a client calls the profiler MBean {@code dev.vantage:type=Profiler} ({@code vantage profile <pid>}, JMX):
 *       a stand-in registered here boots the platform, whose on-demand profiler then takes the MBean's name, and
 *       hands the call to it;</li>
 *   <li>a file appears in the deploy directory (a {@code .cfg} that starts a capture, a bundle to deploy): a
 *       watcher looks at the directory twice a second.</li>
 * </ul>
 *
 * The sessions the application created before the platform boots wait in the agent's bridge, which the platform
 * adopts when it comes. Thread-safe.
 */
final class LazyPlatform {

    /** The name of the on-demand profiler's MBean. */
    static final String MBEAN = "dev.vantage:type=Profiler";
    private static final long WATCH_MILLIS = 500;

    private final Supplier<EmbeddedPlatform> boot;
    private final Path deployDir;
    private final AtomicBoolean stopping = new AtomicBoolean();
    private EmbeddedPlatform platform;
    private boolean booting;
    private RuntimeException failure;

    /**
     * @param boot boots the platform, or throws (a runtime exception with the reason)
     * @param deployDir the directory whose files mean the platform is needed
     */
    LazyPlatform(Supplier<EmbeddedPlatform> boot, Path deployDir) {
        this.boot = boot;
        this.deployDir = deployDir;
    }

    /**
     * Boots the platform unless it is up or booting; returns it.
     *
     * @throws IllegalStateException if it could not boot (then or before), or the application exits
     */
    EmbeddedPlatform get() {
        synchronized (this) {
            while (booting) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while the agent's platform boots");
                }
            }
            if (platform != null) {
                return platform;
            }
            if (failure != null) {
                throw new IllegalStateException("the agent's platform did not start: " + failure.getMessage());
            }
            if (stopping.get()) {
                throw new IllegalStateException("the application is exiting");
            }
            booting = true;
        }
        EmbeddedPlatform p = null;
        RuntimeException f = null;
        try {
            p = boot.get();
        } catch (RuntimeException e) {
            f = e;
        }
        synchronized (this) {
            booting = false;
            platform = p;
            failure = f;
            notifyAll();
        }
        if (f != null) {
            throw new IllegalStateException("the agent's platform did not start: " + f.getMessage(), f);
        }
        return p;
    }

    /** Returns the platform if it is up, else null, without booting it. */
    synchronized EmbeddedPlatform ifBooted() {
        return platform;
    }

    /** Returns whether the platform tried to boot and could not (it said why). */
    synchronized boolean failed() {
        return failure != null;
    }

    /** Returns whether the platform is booting right now. */
    synchronized boolean booting() {
        return booting;
    }

    /** The application exits: nothing boots from now on. */
    void stopping() {
        stopping.set(true);
    }

    /**
     * Registers the stand-in MBean and starts the deploy directory's watcher, on a daemon thread, so that the
     * application's start does not wait for the JVM's MBean server.
     */
    void waitForDemand() {
        Thread t = new Thread(() -> {
            try {
                MBeanServer server = ManagementFactory.getPlatformMBeanServer();
                ObjectName name = new ObjectName(MBEAN);
                if (!server.isRegistered(name)) {
                    server.registerMBean(new StandardMBean(new StandIn(server, name), ProfilerControlMXBean.class,
                            true), name);
                }
            } catch (JMException | RuntimeException e) {
                System.err.println("vantage-agent: could not register " + MBEAN + " (" + e + "); 'vantage profile'"
                        + " cannot reach this process, a file in " + deployDir + " still can");
            }
            watch();
        }, "vantage-agent-demand");
        t.setDaemon(true);
        t.start();
    }

    /** Looks at the deploy directory until a file appears there, then boots the platform (whose FileInstall reads it). */
    private void watch() {
        while (ifBooted() == null && !booting() && !stopping.get()) {
            try (Stream<Path> files = Files.list(deployDir)) {
                if (files.findAny().isPresent()) {
                    get();
                    return;
                }
            } catch (IOException | IllegalStateException e) {
                return;
            }
            try {
                Thread.sleep(WATCH_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** The MBean's operations, as the on-demand profiler's {@code ProfilerControlMXBean} has them. */
    public interface ProfilerControlMXBean {

        /** Starts a capture; see {@code vantage profile <pid> start}. */
        String start(String[] options);

        /** Stops the capture. */
        String stop();

        /** Returns the profiler's state. */
        String status();
    }

    /** Boots the platform at its first call, then hands every call to the on-demand profiler's MBean. */
    private final class StandIn implements ProfilerControlMXBean {
        private final MBeanServer server;
        private final ObjectName name;
        private final ThreadLocal<Boolean> inside = new ThreadLocal<>();

        StandIn(MBeanServer server, ObjectName name) {
            this.server = server;
            this.name = name;
        }

        @Override
        public String start(String[] options) {
            return call("start", new Object[] {options}, new String[] {String[].class.getName()});
        }

        @Override
        public String stop() {
            return call("stop", new Object[0], new String[0]);
        }

        @Override
        public String status() {
            return call("status", new Object[0], new String[0]);
        }

        private String call(String operation, Object[] params, String[] signature) {
            if (inside.get() != null) {
                // the platform booted without an on-demand profiler to take the name: this stand-in got the call
                throw new IllegalStateException("the agent's platform has no on-demand profiler");
            }
            get();
            inside.set(Boolean.TRUE);
            try {
                return String.valueOf(server.invoke(name, operation, params, signature));
            } catch (RuntimeMBeanException e) {
                throw e.getTargetException();
            } catch (RuntimeErrorException e) {
                throw e.getTargetError();
            } catch (MBeanException e) {
                throw new IllegalStateException(String.valueOf(e.getTargetException().getMessage()));
            } catch (JMException e) {
                throw new IllegalStateException("the on-demand profiler cannot be reached: " + e.getMessage());
            } finally {
                inside.remove();
            }
        }
    }
}
