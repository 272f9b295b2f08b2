package dev.vantage.profiler.core.internal;

import java.util.Locale;

/** Formats times and shares the way torch's profiler tables do. */
final class TimeFormat {

    private TimeFormat() {
    }

    /** {@code 12.345us}, {@code 1.234ms} or {@code 2.000s}, three decimals, from nanoseconds. */
    static String time(double nanos) {
        double us = nanos / 1_000.0;
        if (Math.abs(us) >= 1_000_000.0) {
            return String.format(Locale.ROOT, "%.3fs", us / 1_000_000.0);
        }
        if (Math.abs(us) >= 1_000.0) {
            return String.format(Locale.ROOT, "%.3fms", us / 1_000.0);
        }
        return String.format(Locale.ROOT, "%.3fus", us);
    }

    /** {@code 12.34%} of a total; {@code NaN} when the total is 0, as torch prints it. */
    static String share(long part, long total) {
        if (total == 0) {
            return "NaN";
        }
        return String.format(Locale.ROOT, "%.2f%%", part * 100.0 / total);
    }
}
