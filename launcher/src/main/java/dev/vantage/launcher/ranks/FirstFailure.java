package dev.vantage.launcher.ranks;

/**
 * The exit-code policy of {@code vantage launch}: 0 when every rank exits 0, otherwise the code of the rank that
 * failed first. Ranks are reported in the order they exit; the codes of ranks that end after the first failure (those
 * the launcher stopped, among them) do not change the result. Safe for use by several threads.
 */
final class FirstFailure {

    private int rank = -1;
    private int code;

    /**
     * Records that {@code rank} exited with {@code code}.
     *
     * @return true if this is the first rank to fail (exit with anything but 0): the caller stops the others
     */
    synchronized boolean exited(int rank, int code) {
        if (code == 0 || this.rank >= 0) {
            return false;
        }
        this.rank = rank;
        this.code = code;
        return true;
    }

    /** Returns the first failed rank, or -1 while none failed. */
    synchronized int rank() {
        return rank;
    }

    /** Returns the launcher's exit code: the first failed rank's code, or 0 while none failed. */
    synchronized int exitCode() {
        return rank < 0 ? 0 : code;
    }
}
