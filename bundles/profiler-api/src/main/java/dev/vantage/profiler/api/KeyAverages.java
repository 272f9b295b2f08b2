package dev.vantage.profiler.api;

import java.util.List;

import org.osgi.annotation.versioning.ProviderType;

/** Events grouped by name, as torch's {@code key_averages()}; immutable. */
@ProviderType
public interface KeyAverages {

    /** Returns one row per key, in order of first appearance. */
    List<EventAverage> rows();

    /** Returns the sum of all self times, the {@code Self CPU time total} of the table footer. */
    long selfCpuTotalNanos();

    /**
     * Formats the rows as torch's {@code table()} does: a header, one row per key, a footer.
     *
     * @param sortBy the order of the rows; not null
     * @param rowLimit how many rows at most; -1 for all
     * @throws IllegalArgumentException if rowLimit is below -1
     */
    String table(SortKey sortBy, int rowLimit);
}
