package dev.vantage.cli;

import java.util.List;
import java.util.Locale;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The Vantage platforms of this machine's user that on-demand capture reaches, and their captures: what
 * {@code vantage profile} does from a shell, as a service the launcher registers for {@code vantage board}. One
 * implementation, the launcher's attach client, serves both: it lives on the launcher's class path, where the JDK's
 * Attach API is, and reaches the platform's bundles through this package, which the launcher's framework exports.
 * A platform is another process; nothing here is asked of the process that calls, which is never listed.
 */
@ProviderType
public interface LocalPlatforms {

    /**
     * What a platform's on-demand profiler is doing, as the platform publishes it in its system property
     * {@value #PROPERTY}, which a client reads through the Attach API without opening anything in the platform.
     */
    enum Capture {
        /** No capture: one can start. */
        IDLE,
        /** A capture waits for the workload's next step to begin recording. */
        WAITING,
        /** A capture records. */
        RECORDING,
        /** The platform publishes no state: its on-demand profiler is not running (or it predates the property). */
        UNAVAILABLE;

        /** The system property a platform's on-demand profiler keeps its state in: the state's {@link #word()}. */
        public static final String PROPERTY = "vantage.capture";

        /** The state as the property and the board's JSON say it: its name in lower case. */
        public String word() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The state a property's value names; {@link #UNAVAILABLE} for null or a value it does not know. */
        public static Capture of(String word) {
            for (Capture c : values()) {
                if (c != UNAVAILABLE && c.word().equals(word)) {
                    return c;
                }
            }
            return UNAVAILABLE;
        }
    }

    /**
     * A running platform.
     *
     * @param pid its process id
     * @param distribution its distribution ({@code vantage.platform})
     * @param mode what it runs ({@code vantage.platform.mode}: serve, shell, command, ...)
     * @param command its command line as the JVM tells it
     * @param capture what its on-demand profiler is doing
     */
    record Platform(long pid, String distribution, String mode, String command, Capture capture) {
    }

    /** A refusal, by the platform or on the way to it, with the command line's exit code (1, or 2 for bad options). */
    final class Refused extends RuntimeException {

        private static final long serialVersionUID = 1L;

        /** The exit code {@code vantage profile} gives for it. */
        public final int exitCode;

        /** A refusal with its one-line message. */
        public Refused(String message, int exitCode) {
            super(message, null, false, false);
            this.exitCode = exitCode;
        }
    }

    /**
     * This user's running platforms but the caller's own; a JVM that does not answer in time is left out. Listing
     * only reads the JVMs' system properties: it starts nothing in them.
     */
    List<Platform> list();

    /**
     * One platform, as {@link #list()} gives it.
     *
     * @throws Refused when there is no such process, it is another user's, or it is not a Vantage platform
     */
    Platform platform(long pid);

    /**
     * Starts a capture on a platform.
     *
     * @param options the on-demand profiler's {@code key=value} options: {@code duration} (ms), {@code iterations},
     *     {@code activities}, {@code export}, {@code dir}, {@code name}
     * @return the platform's answer, one line
     * @throws Refused when the platform cannot be reached or refuses
     */
    String start(long pid, List<String> options);

    /**
     * Stops a capture.
     *
     * @return the platform's answer (the trace written), one line
     * @throws Refused when the platform cannot be reached or has no capture to stop
     */
    String stop(long pid);
}
