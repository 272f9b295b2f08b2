package dev.vantage.device.spyre.driver;

/**
 * The tracing library could not be loaded: it is not installed, or it failed to initialise. Profiles go on
 * without device activity.
 */
public class SpyreTracingUnavailableException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String library;
    private final String reason;

    /**
     * Creates the exception.
     *
     * @param library the library's name, such as {@code libaiupti}
     * @param reason why it is unavailable, for the user
     */
    public SpyreTracingUnavailableException(String library, String reason) {
        super(library + " not available: " + reason);
        this.library = library;
        this.reason = reason;
    }

    /** Returns the library's name. */
    public String library() {
        return library;
    }

    /** Returns why the library is unavailable. */
    public String reason() {
        return reason;
    }
}
