package dev.vantage.profiler.api;

import java.util.List;

import org.osgi.annotation.versioning.ProviderType;

/** Events grouped by key, as torch's {@code key_averages()}; immutable and thread-safe. */
@ProviderType
public interface KeyAverages {

    /** Returns one row per key, in order of first appearance. */
    List<EventAverage> rows();

    /** Returns one row summing every event, keyed {@code Total}, as torch's {@code total_average()}. */
    EventAverage totalAverage();

    /** Returns the sum of all self times, the {@code Self CPU time total} of the table footer. */
    long selfCpuTotalNanos();

    /**
     * Returns the device type the device columns are named after, such as {@code npu}, or the empty string when
     * no device time was recorded.
     */
    String deviceType();

    /**
     * Formats the rows as torch's {@code table()} does.
     *
     * @param sortBy the order of the rows; not null
     * @param rowLimit how many rows at most; -1 for all
     * @throws IllegalArgumentException if rowLimit is below -1
     */
    String table(SortKey sortBy, int rowLimit);

    /**
     * Formats the rows as torch's {@code table()} does, with the columns the options ask for.
     *
     * @param options sort key, row limit, percentiles; not null
     */
    String table(TableOptions options);
}
