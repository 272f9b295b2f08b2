package dev.vantage.launcher;

/** A failure to bring something up (the platform, a rank, a tool), with one line for the user: exit code 1. */
public final class LaunchException extends Exception {

    private static final long serialVersionUID = 1L;

    /**
     * @param message one line saying what failed and, where it helps, what to do
     */
    public LaunchException(String message) {
        super(message, null, false, false);
    }
}
