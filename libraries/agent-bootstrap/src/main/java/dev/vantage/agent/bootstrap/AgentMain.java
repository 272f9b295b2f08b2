package dev.vantage.agent.bootstrap;

import java.lang.instrument.Instrumentation;
import java.nio.file.Path;

/**
 * The agent's entry points: {@code premain} for {@code -javaagent:vantage-agent.jar[=options]}, {@code agentmain}
 * for a load into a running JVM, and {@code main} for {@code java -jar vantage-agent.jar <pid> [options]}, which
 * does that load ({@link AttachClient}).
 *
 * <p>The JVM loads this class, and the rest of the jar's root ({@code dev.vantage.agent.bootstrap}), with the system
 * class loader, to which the application's class loaders delegate: so the calls woven into the application's
 * classes resolve {@link Bridge}. The jar is not appended to the bootstrap class loader's search, which would turn
 * off class data sharing for every class outside the boot loader (and make the JVM say so on standard output).
 * Nothing it does throws into the JVM's start: a failure is one line on standard error and the application runs
 * unprofiled.
 */
public final class AgentMain {

    private AgentMain() {
    }

    /** {@code -javaagent:vantage-agent.jar[=options]}: runs before the application's {@code main}. */
    public static void premain(String options, Instrumentation inst) {
        start(options, inst, false);
    }

    /** A load into a running JVM through the Attach API. */
    public static void agentmain(String options, Instrumentation inst) {
        start(options, inst, true);
    }

    /** {@code java -jar vantage-agent.jar <pid> [options]}: loads the agent into a running JVM. */
    public static void main(String[] args) throws Exception {
        Class<?> client = Class.forName("dev.vantage.agent.bootstrap.AttachClient");
        int code = (int) client.getMethod("run", String[].class).invoke(null, (Object) args);
        System.exit(code);
    }

    private static void start(String options, Instrumentation inst, boolean dynamic) {
        try {
            Path jar = Path.of(AgentMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            AgentStart.start(options, inst, dynamic, jar);
        } catch (Throwable t) {
            Throwable cause = t instanceof java.lang.reflect.InvocationTargetException i && i.getCause() != null
                    ? i.getCause() : t;
            System.err.println("vantage-agent: could not start (" + cause + "); the application runs unprofiled");
        }
    }
}
