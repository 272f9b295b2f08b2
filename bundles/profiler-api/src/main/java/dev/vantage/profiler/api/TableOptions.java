package dev.vantage.profiler.api;

import java.util.Objects;

/**
 * How {@link KeyAverages#table(TableOptions)} lays out a table.
 *
 * @param sortBy the order of the rows
 * @param rowLimit how many rows at most; -1 for all
 * @param percentiles adds {@code CPU p50}, {@code CPU p99} and {@code CPU max} columns (not in torch)
 * @param topLevelOnly keeps only events with no parent, as torch's {@code top_level_events_only}
 */
public record TableOptions(SortKey sortBy, int rowLimit, boolean percentiles, boolean topLevelOnly) {

    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException if rowLimit is below -1
     */
    public TableOptions {
        Objects.requireNonNull(sortBy, "sortBy");
        if (rowLimit < -1) {
            throw new IllegalArgumentException("row limit must be -1 (all) or 0 or more, not " + rowLimit);
        }
    }

    /** Sorted by self CPU time, 100 rows, no percentiles: torch's defaults with a sort key. */
    public static TableOptions defaults() {
        return new TableOptions(SortKey.SELF_CPU_TIME_TOTAL, 100, false, false);
    }
}
