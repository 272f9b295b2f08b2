package dev.vantage.cli;

/**
 * A command line that cannot run, refused before any work: its message is one line that names the bad verb, flag
 * or value, and the process exits with code 2.
 */
public final class UsageException extends Exception {

    private static final long serialVersionUID = 1L;

    /**
     * @param message one line naming the bad input; not null
     */
    public UsageException(String message) {
        super(message, null, false, false);
    }
}
