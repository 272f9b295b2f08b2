package dev.vantage.trace.engine.write;

import java.io.IOException;

import com.fasterxml.jackson.core.JsonGenerator;

import dev.vantage.profiler.trace.TraceTime;

/**
 * Writes Kineto's time numbers ({@link TraceTime#micros(long)}: microseconds with three decimals) into a JSON
 * generator. One instance per writer: it formats into a buffer of its own, so writing a time allocates nothing.
 */
final class MicrosText {

    private final char[] buffer = new char[TraceTime.MAX_CHARS];

    /** Writes {@code nanos} as a JSON number. */
    void write(JsonGenerator g, long nanos) throws IOException {
        int start = TraceTime.micros(nanos, buffer);
        g.writeNumber(buffer, start, buffer.length - start);
    }

    /** Returns {@code nanos} as text. */
    static String of(long nanos) {
        return TraceTime.micros(nanos);
    }
}
