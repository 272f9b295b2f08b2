package dev.vantage.cli;

import java.util.List;

/**
 * The Vantage platforms of this machine's user that on-demand capture reaches, and their captures: what
 * {@code vantage profile} does from a shell, as a service the launcher registers for {@code vantage board} (one
 * implementation, the launcher's attach client, serves both). A platform is another process; nothing here is asked
 * of the process that calls.
 */
public interface LocalPlatforms {

    /**
     * A running platform.
     *
     * @param pid its process id
     * @param distribution its distribution ({@code vantage.platform})
     * @param mode what it runs ({@code vantage.platform.mode}: serve, shell, run, ...)
     * @param command its command line as the JVM tells it
     */
    record Platform(long pid, String distribution, String mode, String command) {
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

    /** This user's running platforms but the caller's own; a JVM that does not answer in time is left out. */
    List<Platform> list();

    /**
     * Starts a capture on a platform.
     *
     * @param options the on-demand profiler's {@code key=value} options: {@code duration} (ms), {@code iterations},
     *     {@code activities}, {@code export}, {@code dir}, {@code name}
     * @return the platform's answer, one line
     * @throws Refused when the platform cannot be reached or refuses
     */
    String start(long pid, List<String> options);

    /** The platform's capture state, one line. */
    String status(long pid);

    /** Stops a capture; the platform's answer (the trace written), one line. */
    String stop(long pid);
}
