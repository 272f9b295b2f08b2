package dev.vantage.profiler.trace;

import java.util.Locale;

/**
 * The one way Vantage writes times: nanoseconds as microseconds with exactly three decimals ({@code 1234567} is
 * {@code 1234.567}, {@code -500} is {@code -0.500}), as Kineto's {@code ts}/{@code dur} and torch_npu's
 * {@code convert_ns2us_str} write them; and torch's table units ({@code 12.345us}, {@code 1.234ms},
 * {@code 2.000s}). Negative values keep their sign everywhere, so no format hides a time that went backwards.
 */
public final class TraceTime {

    /** Enough characters for any {@code long} as microseconds: a sign, 19 digits and the point. */
    public static final int MAX_CHARS = 21;

    private TraceTime() {
    }

    /** Returns {@code nanos} as microseconds with three decimals, such as {@code 1234.567} or {@code -0.500}. */
    public static String micros(long nanos) {
        char[] b = new char[MAX_CHARS];
        int start = micros(nanos, b);
        return new String(b, start, b.length - start);
    }

    /**
     * Writes {@link #micros(long)} into the end of a buffer without allocating, and returns where the text starts.
     *
     * @param into at least {@link #MAX_CHARS} characters; the text ends at its last character
     */
    public static int micros(long nanos, char[] into) {
        int i = into.length;
        boolean negative = nanos < 0;
        // Long.MIN_VALUE has no positive counterpart: work with the digits of the negative value
        long v = nanos;
        for (int d = 0; d < 3; d++) {
            into[--i] = (char) ('0' + Math.abs(v % 10));
            v /= 10;
        }
        into[--i] = '.';
        do {
            into[--i] = (char) ('0' + Math.abs(v % 10));
            v /= 10;
        } while (v != 0);
        if (negative) {
            into[--i] = '-';
        }
        return i;
    }

    /**
     * Returns a time in torch's table units: {@code 12.345us}, {@code 1.234ms} or {@code 2.000s}, three decimals,
     * the unit chosen by the magnitude.
     */
    public static String human(double nanos) {
        double us = nanos / 1_000.0;
        if (Math.abs(us) >= 1_000_000.0) {
            return String.format(Locale.ROOT, "%.3fs", us / 1_000_000.0);
        }
        if (Math.abs(us) >= 1_000.0) {
            return String.format(Locale.ROOT, "%.3fms", us / 1_000.0);
        }
        return String.format(Locale.ROOT, "%.3fus", us);
    }
}
