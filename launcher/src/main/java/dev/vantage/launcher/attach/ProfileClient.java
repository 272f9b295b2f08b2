package dev.vantage.launcher.attach;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import javax.management.InstanceNotFoundException;
import javax.management.MBeanException;
import javax.management.MBeanServerConnection;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import javax.management.ReflectionException;
import javax.management.RuntimeErrorException;
import javax.management.RuntimeMBeanException;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import com.sun.tools.attach.VirtualMachineDescriptor;

import dev.vantage.cli.CaptureOptions;
import dev.vantage.cli.LocalPlatforms;
import dev.vantage.cli.ParsedCommand;
import dev.vantage.cli.ProfileCommand;
import dev.vantage.cli.Verb;

/**
 * The {@code profile} verb: starts, shows and stops a capture in a running Vantage platform from another process,
 * as {@code jcmd} does, without the platform listening on anything beforehand.
 *
 * <p>The client attaches with the JDK Attach API (a Unix socket the target JVM creates on request; the JDK lets
 * only the same OS user use it), checks that the target is a Vantage platform (system property
 * {@code vantage.platform}, which the launcher sets when it boots a platform), asks it to start its local management agent, and calls the
 * profiler MBean {@value #MBEAN} over that connection. {@code startLocalManagementAgent} is used rather than loading
 * an agent, because dynamically loaded agents are warned about from JDK 21 on and need code in the target.
 *
 * <p>Every failure is one line on the error stream, {@code vantage: ...}, with exit code 1 (the platform refused or
 * cannot be reached) or 2 (bad arguments, from the client or from the platform); never a stack trace.
 */
public final class ProfileClient {

    /** The name the platform registers its on-demand profiler under. */
    public static final String MBEAN = "dev.vantage:type=Profiler";

    /** How long {@code --list} waits for all JVMs together to tell their system properties. */
    private static final long LIST_TIMEOUT_SECONDS = 15;

    private ProfileClient() {
    }

    /** A failure with a one-line message for the user and the exit code it means. */
    static final class Refusal extends Exception {
        final int exitCode;

        Refusal(String message, int exitCode) {
            super(message, null, false, false);
            this.exitCode = exitCode;
        }
    }

    /**
     * Runs {@code vantage profile}: {@code --list}, or {@code start}, {@code status} or {@code stop} of a process.
     *
     * @return the exit code: 0 done, 1 refused or unreachable, 2 bad arguments (the platform's refusal of an
     *     option)
     */
    public static int run(ParsedCommand command, PrintStream out, PrintStream err) {
        try {
            Verb options = command.options();
            if (options instanceof ProfileCommand.Start start) {
                print(out, invoke(start.pid(), "start", startOptions(start.capture())));
            } else if (options instanceof ProfileCommand.Status status) {
                print(out, invoke(status.pid(), "status", null));
            } else if (options instanceof ProfileCommand.Stop stop) {
                print(out, invoke(stop.pid(), "stop", null));
            } else {
                list(out);
            }
            return 0;
        } catch (Refusal e) {
            err.println("vantage: " + e.getMessage());
            return e.exitCode;
        }
    }

    /**
     * The MBean's {@code key=value} options of a capture, plus who this client says it is ({@code requested_by}),
     * which the platform keeps as the client's claim after what it saw of the caller itself. How the capture was
     * asked for ({@code trigger}) is the platform's to write.
     */
    static String[] startOptions(CaptureOptions capture) {
        List<String> all = new ArrayList<>();
        if (capture.durationMillis() > 0) {
            all.add("duration=" + capture.durationMillis());
        }
        if (capture.iterations() > 0) {
            all.add("iterations=" + capture.iterations());
        }
        if (!capture.activities().isEmpty()) {
            all.add("activities=" + String.join(",", capture.activities()));
        }
        if (!capture.exports().isEmpty()) {
            all.add("export=" + String.join(",", capture.exports()));
        }
        if (capture.dir() != null) {
            all.add("dir=" + capture.dir());
        }
        if (capture.name() != null) {
            all.add("name=" + capture.name());
        }
        all.add("requested_by=pid " + ProcessHandle.current().pid() + " user " + System.getProperty("user.name"));
        return all.toArray(new String[0]);
    }

    /** The refusal for a process of another OS user. */
    static String otherUserMessage(long pid, String user) {
        return "process " + pid + " belongs to user " + user + "; only the same user can attach (the JDK Attach"
                + " API's rule)";
    }

    /** The refusal for a process that is not a Vantage platform. */
    static String notPlatformMessage(long pid, String command) {
        return "process " + pid + " is not a Vantage platform (its command: " + command + ")";
    }

    private static void print(PrintStream out, String text) {
        out.print(text.endsWith("\n") ? text : text + "\n");
    }

    /** Prints one line per running Vantage platform of this user; JVMs that cannot be asked are skipped. */
    static void list(PrintStream out) {
        List<LocalPlatforms.Platform> platforms = platforms();
        if (platforms.isEmpty()) {
            out.println("no running Vantage platform");
        }
        platforms.forEach(p -> out.println(p.pid() + "  " + p.distribution() + "  " + p.mode() + "  " + p.command()));
    }

    /** This user's running Vantage platforms but this process; JVMs that cannot be asked in time are skipped. */
    static List<LocalPlatforms.Platform> platforms() {
        long self = ProcessHandle.current().pid();
        List<VirtualMachineDescriptor> candidates = new ArrayList<>();
        for (VirtualMachineDescriptor d : VirtualMachine.list()) {
            long pid = parsePid(d.id());
            Optional<ProcessHandle> h = ProcessHandle.of(pid);
            if (pid > 0 && pid != self && h.isPresent() && foreignOwner(h.get()) == null) {
                candidates.add(d);
            }
        }
        List<LocalPlatforms.Platform> found = new ArrayList<>();
        if (candidates.isEmpty()) {
            return found;
        }
        // one JVM that does not answer must not hold up the others
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(4, candidates.size()), r -> {
            Thread t = new Thread(r, "vantage-profile-list");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<LocalPlatforms.Platform>> answers = new ArrayList<>();
            for (VirtualMachineDescriptor d : candidates) {
                answers.add(pool.submit(() -> platform(d)));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIST_TIMEOUT_SECONDS);
            for (Future<LocalPlatforms.Platform> f : answers) {
                try {
                    LocalPlatforms.Platform p = f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                    if (p != null) {
                        found.add(p);
                    }
                } catch (Exception e) {
                    // refused, gone, or too slow to answer: not one we can profile, so not listed
                }
            }
        } finally {
            pool.shutdownNow();
        }
        return found;
    }

    private static LocalPlatforms.Platform platform(VirtualMachineDescriptor d) throws Exception {
        VirtualMachine vm = VirtualMachine.attach(d);
        try {
            return platform(parsePid(d.id()), vm.getSystemProperties());
        } finally {
            detachQuietly(vm);
        }
    }

    /** The platform a JVM's system properties describe, or null when they are not a Vantage platform's. */
    private static LocalPlatforms.Platform platform(long pid, Properties p) {
        String platform = p.getProperty("vantage.platform");
        if (platform == null) {
            return null;
        }
        return new LocalPlatforms.Platform(pid, platform, p.getProperty("vantage.platform.mode", "?"),
                p.getProperty("sun.java.command", "?"),
                LocalPlatforms.Capture.of(p.getProperty(LocalPlatforms.Capture.PROPERTY)));
    }

    /** One platform, after the checks of {@link #attach(long)}; reads its system properties only. */
    static LocalPlatforms.Platform platform(long pid) throws Refusal {
        VirtualMachine vm = attach(pid);
        try {
            Properties p = vm.getSystemProperties();
            LocalPlatforms.Platform found = platform(pid, p);
            if (found == null) {
                throw new Refusal(notPlatformMessage(pid, p.getProperty("sun.java.command", "?")), 1);
            }
            return found;
        } catch (IOException e) {
            throw new Refusal("process " + pid + " did not answer through the Attach API: " + e.getMessage(), 1);
        } finally {
            detachQuietly(vm);
        }
    }

    /**
     * The attach client as the service {@code vantage board} finds: the same calls as the verb's, with the board named
     * in the {@code requested_by} the platform keeps.
     */
    public static LocalPlatforms service() {
        return new LocalPlatforms() {
            @Override
            public List<Platform> list() {
                return platforms();
            }

            @Override
            public Platform platform(long pid) {
                try {
                    return ProfileClient.platform(pid);
                } catch (Refusal e) {
                    throw new Refused(e.getMessage(), e.exitCode);
                }
            }

            @Override
            public String start(long pid, List<String> options) {
                List<String> all = new ArrayList<>(options);
                all.add("requested_by=pid " + ProcessHandle.current().pid() + " user "
                        + System.getProperty("user.name") + " (vantage board)");
                return call(pid, "start", all.toArray(new String[0]));
            }

            @Override
            public String stop(long pid) {
                return call(pid, "stop", null);
            }

            private String call(long pid, String operation, String[] options) {
                try {
                    return invoke(pid, operation, options).strip();
                } catch (Refusal e) {
                    throw new Refused(e.getMessage(), e.exitCode);
                }
            }
        };
    }

    /** Calls one operation of the target's profiler MBean; returns its text. */
    private static String invoke(long pid, String operation, String[] options) throws Refusal {
        String address;
        VirtualMachine vm = attach(pid);
        try {
            Properties p = vm.getSystemProperties();
            if (p.getProperty("vantage.platform") == null) {
                throw new Refusal(notPlatformMessage(pid, p.getProperty("sun.java.command", "?")), 1);
            }
            address = vm.startLocalManagementAgent();
        } catch (IOException e) {
            throw new Refusal("process " + pid + " did not answer through the Attach API: " + e.getMessage(), 1);
        } finally {
            detachQuietly(vm);
        }
        ObjectName name = profilerName();
        Object[] params = options == null ? new Object[0] : new Object[] {options};
        String[] signature = options == null ? new String[0] : new String[] {String[].class.getName()};
        try (JMXConnector connector = JMXConnectorFactory.connect(new JMXServiceURL(address))) {
            MBeanServerConnection server = connector.getMBeanServerConnection();
            if (!server.isRegistered(name)) {
                throw new Refusal(noProfilerMessage(pid), 1);
            }
            return String.valueOf(server.invoke(name, operation, params, signature));
        } catch (InstanceNotFoundException e) {
            throw new Refusal(noProfilerMessage(pid), 1);   // unregistered between the check and the call
        } catch (RuntimeMBeanException e) {
            throw platformFailure(e.getTargetException());
        } catch (MBeanException e) {
            throw platformFailure(e.getTargetException());
        } catch (RuntimeErrorException e) {
            throw platformFailure(e.getTargetError());
        } catch (ReflectionException e) {
            throw new Refusal("the profiler of process " + pid + " has no operation " + operation + "("
                    + String.join(",", signature) + "); is the platform of another Vantage version?", 1);
        } catch (IOException e) {
            throw new Refusal("lost the connection to process " + pid + ": " + e.getMessage(), 1);
        }
    }

    private static String noProfilerMessage(long pid) {
        return "the platform in process " + pid + " has no on-demand profiler (its profiler core is not running)";
    }

    /** The platform's own message: exit 2 when it found an option bad, 1 for anything else. */
    private static Refusal platformFailure(Throwable t) {
        if (t == null) {
            return new Refusal("the platform failed without saying why", 1);
        }
        String message = t.getMessage() != null ? t.getMessage() : t.getClass().getName();
        if (t instanceof IllegalArgumentException) {
            return new Refusal(message, 2);
        }
        if (t instanceof IllegalStateException) {
            return new Refusal(message, 1);
        }
        return new Refusal("the platform failed: " + t, 1);
    }

    /** Attaches after checking, without signalling anything, that the process exists, is ours and is a JVM. */
    private static VirtualMachine attach(long pid) throws Refusal {
        ProcessHandle handle = ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
                .orElseThrow(() -> new Refusal("no process " + pid, 1));
        String owner = foreignOwner(handle);
        if (owner != null) {
            throw new Refusal(otherUserMessage(pid, owner), 1);
        }
        // the Attach API signals (SIGQUIT) the process it attaches to, which ends a process that is not a JVM;
        // only JVMs that publish themselves (hsperfdata, as jps and jcmd use) are tried
        String id = Long.toString(pid);
        if (VirtualMachine.list().stream().noneMatch(d -> d.id().equals(id))) {
            String command = handle.info().commandLine().or(() -> handle.info().command()).orElse("?").strip();
            throw new Refusal(notPlatformMessage(pid, command), 1);
        }
        try {
            return VirtualMachine.attach(id);
        } catch (AttachNotSupportedException | IOException e) {
            if (!handle.isAlive()) {
                throw new Refusal("no process " + pid, 1);
            }
            owner = foreignOwner(handle);
            if (owner != null || String.valueOf(e.getMessage()).contains("owned by")) {
                throw new Refusal(otherUserMessage(pid, owner != null ? owner : "another user"), 1);
            }
            throw new Refusal("cannot attach to process " + pid + ": " + e.getMessage(), 1);
        }
    }

    /**
     * Returns the name of the user owning the process when that is not this process's user, else null (also when
     * it cannot be told; the Attach API then decides). Linux: the owners of {@code /proc/<pid>} and
     * {@code /proc/self} by uid, so that users without a name compare right; elsewhere the names.
     */
    static String foreignOwner(ProcessHandle process) {
        Path proc = Path.of("/proc", Long.toString(process.pid()));
        try {
            if (Files.isDirectory(proc)) {
                Object theirs = Files.getAttribute(proc, "unix:uid");
                Object mine = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
                return theirs.equals(mine) ? null : Files.getOwner(proc).getName();
            }
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | SecurityException e) {
            // no /proc, or not readable: fall back to the names below
        }
        String me = System.getProperty("user.name");
        return process.info().user().filter(u -> !u.equals(me)).orElse(null);
    }

    private static ObjectName profilerName() {
        try {
            return new ObjectName(MBEAN);
        } catch (MalformedObjectNameException e) {
            throw new AssertionError(e);
        }
    }

    private static long parsePid(String id) {
        try {
            return Long.parseLong(id);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static void detachQuietly(VirtualMachine vm) {
        try {
            vm.detach();
        } catch (IOException e) {
            // the attach connection is per request; nothing stays open on either side
        }
    }
}
