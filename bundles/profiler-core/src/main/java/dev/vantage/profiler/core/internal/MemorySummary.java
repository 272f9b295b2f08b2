package dev.vantage.profiler.core.internal;

import java.util.Locale;
import java.util.Map;

/**
 * A device's allocator counters as torch's {@code memory_summary()} lays them out: lines of 75 characters between
 * {@code |} bars, a title naming the device, the out-of-memory and retry counts, then for each statistic its
 * current, peak, total allocated and total freed values, with the large-pool and small-pool rows under each unless
 * abbreviated. Sizes go up a unit (B, KiB, MiB, ...) while the row's first value is at least 768 of the next one,
 * and counts (K, M) from 750,000, as torch scales them, so that a row's four values share a unit.
 */
final class MemorySummary {

    private static final int WIDTH = 75;
    private static final String[] SIZE_UNITS = {"B  ", "KiB", "MiB", "GiB", "TiB", "PiB"};
    private static final String[] COUNT_UNITS = {" ", "K", "M"};

    private MemorySummary() {
    }

    /**
     * Formats the counters of a device.
     *
     * @param device such as {@code npu:0} or {@code cpu}
     * @param stats counters under torch's {@code memory_stats()} names; missing ones count as 0
     */
    static String format(String device, Map<String, Long> stats, boolean abbreviated) {
        int colon = device.indexOf(':');
        String type = (colon < 0 ? device : device.substring(0, colon)).toUpperCase(Locale.ROOT);
        String id = colon < 0 ? "host" : device.substring(colon + 1);
        StringBuilder out = new StringBuilder();
        rule(out, '=');
        line(out, " ".repeat(17) + "Vantage " + type + " memory summary, device ID " + id);
        rule(out, '-');
        line(out, String.format(Locale.ROOT, "  %9s %s OOMs: %-12d | %6s device malloc retries: %-8d", "", type,
                get(stats, "num_ooms"), "", get(stats, "num_alloc_retries")));
        rule(out, '=');
        line(out, "        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  ");
        String[][] metrics = {
            {"allocated_bytes", "Allocated memory", "size"},
            {"active_bytes", "Active memory", "size"},
            {"requested_bytes", "Requested memory", "size"},
            {"reserved_bytes", type + " reserved memory", "size"},
            {"inactive_split_bytes", "Non-releasable memory", "size"},
            {"allocation", "Allocations", "count"},
            {"active", "Active allocs", "count"},
            {"segment", type + " reserved segments", "count"},
            {"inactive_split", "Non-releasable allocs", "count"},
        };
        for (String[] m : metrics) {
            rule(out, '-');
            boolean size = m[2].equals("size");
            long[] first = values(stats, m[0] + ".all.");
            row(out, m[1], first, first, size);
            if (!abbreviated) {
                row(out, "      from large pool", values(stats, m[0] + ".large_pool."), first, size);
                row(out, "      from small pool", values(stats, m[0] + ".small_pool."), first, size);
            }
        }
        for (String[] m : new String[][] {{"oversize_allocations", "Oversize allocations"},
            {"oversize_segments", "Oversize " + type + " segments"}}) {
            rule(out, '-');
            long[] v = values(stats, m[0] + ".");
            row(out, m[1], v, v, false);
        }
        rule(out, '=');
        return out.toString();
    }

    private static long get(Map<String, Long> stats, String key) {
        return stats.getOrDefault(key, 0L);
    }

    private static long[] values(Map<String, Long> stats, String prefix) {
        return new long[] {get(stats, prefix + "current"), get(stats, prefix + "peak"),
            get(stats, prefix + "allocated"), get(stats, prefix + "freed")};
    }

    private static void row(StringBuilder out, String name, long[] v, long[] scale, boolean size) {
        StringBuilder r = new StringBuilder(String.format(Locale.ROOT, " %-21s ", name));
        for (int i = 0; i < 4; i++) {
            r.append("| ").append(size ? size(v[i], scale[i]) : count(v[i], scale[i])).append(' ');
        }
        line(out, r.toString());
    }

    /** Ten characters: the value in the unit its row's first value calls for. */
    static String size(long value, long reference) {
        return scaled(value, reference, SIZE_UNITS, 1024, "%6d %s");
    }

    /** Ten characters: the count in the unit its row's first count calls for. */
    static String count(long value, long reference) {
        return scaled(value, reference, COUNT_UNITS, 1000, "%7d %s ");
    }

    /**
     * Moves up a unit (of {@code step}) while the reference is at least three quarters of the unit after next, as
     * torch does: 768 KiB for sizes, 750 K for counts.
     */
    private static String scaled(long value, long reference, String[] units, int step, String format) {
        int unit = 0;
        double ref = reference;
        double threshold = 0.75 * step * step;
        while (unit < units.length - 1 && ref >= threshold) {
            value /= step;
            ref /= step;
            unit++;
        }
        return String.format(Locale.ROOT, format, value, units[unit]);
    }

    private static void rule(StringBuilder out, char c) {
        line(out, String.valueOf(c).repeat(WIDTH));
    }

    private static void line(StringBuilder out, String text) {
        String fitted = text.length() >= WIDTH ? text.substring(0, WIDTH) : text + " ".repeat(WIDTH - text.length());
        out.append('|').append(fitted).append("|\n");
    }
}
