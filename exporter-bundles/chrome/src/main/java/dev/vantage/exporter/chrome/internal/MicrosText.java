package dev.vantage.exporter.chrome.internal;

import java.io.IOException;

import com.fasterxml.jackson.core.JsonGenerator;

/**
 * Kineto's time text: nanoseconds as microseconds with exactly three decimals ({@code 1234567} is
 * {@code 1234.567}), negative values as {@code 0.000} (Kineto clamps them too). One instance per writer: it formats
 * into a buffer of its own, so writing a time allocates nothing.
 */
final class MicrosText {

    /** Enough for any long: 19 digits, the point. */
    private final char[] buffer = new char[24];

    /** Writes {@code nanos} as a JSON number. */
    void write(JsonGenerator g, long nanos) throws IOException {
        int start = format(nanos, buffer);
        g.writeNumber(buffer, start, buffer.length - start);
    }

    /** Returns {@code nanos} as text. */
    static String of(long nanos) {
        char[] b = new char[24];
        int start = format(nanos, b);
        return new String(b, start, b.length - start);
    }

    /** Fills the end of {@code b} with the text and returns where it starts. */
    private static int format(long nanos, char[] b) {
        long v = Math.max(0, nanos);
        int i = b.length;
        for (int d = 0; d < 3; d++) {
            b[--i] = (char) ('0' + v % 10);
            v /= 10;
        }
        b[--i] = '.';
        do {
            b[--i] = (char) ('0' + v % 10);
            v /= 10;
        } while (v > 0);
        return i;
    }
}
