package dev.vantage.agent.bootstrap;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Properties;
import java.util.stream.Stream;

import com.sun.tools.attach.AgentInitializationException;
import com.sun.tools.attach.AgentLoadException;
import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;

/**
 * {@code java -jar vantage-agent.jar <pid> [options]}: loads the agent into a running JVM through the JDK's Attach
 * API, after checking the options as the agent will (so that a bad one is refused here, before anything is loaded).
 *
 * <p>From Java 21 on, the JVM warns on its own standard error about an agent loaded while it runs (JEP 451) unless
 * it was started with {@code -XX:+EnableDynamicAgentLoading}; a later JDK refuses such a load by default. The
 * client neither hides nor works around that: it says so, and passes on the JVM's refusal as it comes.
 *
 * <p>Exit codes: 0 loaded; 1 the process cannot be reached or refused the agent; 2 bad arguments.
 */
public final class AttachClient {

    static final String USAGE = "usage: java -jar vantage-agent.jar <pid> [options]   (options as for"
            + " -javaagent:vantage-agent.jar=options, such as start=startup,duration=10s)";

    private AttachClient() {
    }

    /** Runs the client; returns the exit code. */
    public static int run(String[] args) {
        return run(args, System.out, System.err);
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
            out.println(USAGE);
            return 0;
        }
        if (args.length < 1 || args.length > 2) {
            err.println("vantage-agent: " + (args.length == 0 ? "which process? " : "too many arguments; ") + USAGE);
            return 2;
        }
        long pid;
        try {
            pid = Long.parseLong(args[0]);
        } catch (NumberFormatException e) {
            pid = -1;
        }
        if (pid <= 0) {
            err.println("vantage-agent: '" + args[0] + "' is not a process id; " + USAGE);
            return 2;
        }
        String options = args.length == 2 ? args[1] : "";
        Path jar;
        try {
            jar = Path.of(AttachClient.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            String problem = checkOptions(jar, options);
            if (problem != null) {
                err.println("vantage-agent: " + problem);
                return 2;
            }
        } catch (Exception e) {
            err.println("vantage-agent: cannot read the agent jar (" + e + ")");
            return 1;
        }
        return load(pid, jar, options, out, err);
    }

    /** The options' refusal as the agent would say it, or null; checked in the host's class loader. */
    private static String checkOptions(Path jar, String options) throws Exception {
        Path home = AgentStart.ownFolder(Path.of(System.getProperty("java.io.tmpdir")),
                AgentStart.FOLDER_PREFIX + "client-" + ProcessHandle.current().pid() + "-");
        try {
            ClassLoader host = AgentStart.hostLoader(jar, home);
            try {
                return (String) host.loadClass("dev.vantage.agent.host.AgentHost").getMethod("check", String.class)
                        .invoke(null, options);
            } finally {
                ((java.io.Closeable) host).close();
            }
        } finally {
            try (Stream<Path> s = Files.walk(home)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static int load(long pid, Path jar, String options, PrintStream out, PrintStream err) {
        String id = Long.toString(pid);
        if (ProcessHandle.of(pid).filter(ProcessHandle::isAlive).isEmpty()) {
            err.println("vantage-agent: no process " + pid);
            return 1;
        }
        // the Attach API signals the process it attaches to, which ends one that is not a JVM: only JVMs that
        // publish themselves (as jps and jcmd find them) are tried
        if (VirtualMachine.list().stream().noneMatch(d -> d.id().equals(id))) {
            err.println("vantage-agent: process " + pid + " is not a JVM this user can attach to (jps does not list"
                    + " it)");
            return 1;
        }
        VirtualMachine vm;
        try {
            vm = VirtualMachine.attach(id);
        } catch (AttachNotSupportedException | IOException e) {
            err.println("vantage-agent: cannot attach to process " + pid + ": " + e.getMessage());
            return 1;
        }
        try {
            Properties before = vm.getSystemProperties();
            if (before.getProperty("vantage.platform") != null) {
                err.println("vantage-agent: process " + pid + " runs Vantage already ("
                        + before.getProperty("vantage.platform") + "); profile it with 'vantage profile " + pid
                        + " start'");
                return 1;
            }
            String version = before.getProperty("java.specification.version", "?");
            vm.loadAgent(jar.toString(), options);
            String state = vm.getSystemProperties().getProperty("vantage.agent", "");
            if (state.startsWith("refused: ")) {
                err.println("vantage-agent: process " + pid + " refused the options: " + state.substring(9));
                return 2;
            }
            out.println("vantage-agent: loaded into process " + pid + " (Java " + version + "); profile it with"
                    + " 'vantage profile " + pid + " start'");
            if (warnsOnDynamicAgents(version)) {
                err.println("vantage-agent: Java " + version + " prints a warning on process " + pid + "'s standard"
                        + " error about an agent loaded into a running JVM (JEP 451) unless it was started with"
                        + " -XX:+EnableDynamicAgentLoading; start it with -javaagent:" + jar + " to load the agent"
                        + " without one");
            }
            return 0;
        } catch (AgentLoadException | AgentInitializationException e) {
            err.println("vantage-agent: process " + pid + " did not load the agent: " + e.getMessage());
            return 1;
        } catch (IOException e) {
            err.println("vantage-agent: lost process " + pid + " while loading the agent: " + e.getMessage());
            return 1;
        } finally {
            try {
                vm.detach();
            } catch (IOException e) {
                // the attach connection is per request
            }
        }
    }

    /** Whether a JVM of this specification version warns about agents loaded while it runs (JEP 451: 21 on). */
    static boolean warnsOnDynamicAgents(String specificationVersion) {
        try {
            return Integer.parseInt(specificationVersion) >= 21;
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
