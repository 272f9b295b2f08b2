package dev.vantage.trace.engine.read;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A trace file refused for damage: what is wrong and the byte offset where, in one line that names the file. Thrown
 * by a strict read at the first damage ({@link TraceRepairs}), and by any read when a file has no readable part.
 */
public final class DamagedTraceException extends IOException {

    private static final long serialVersionUID = 1L;

    private final long offset;

    /**
     * @param file the file, or null when the reader was given a stream
     * @param offset the byte offset of the damage, or -1 when unknown
     * @param gzip whether the offset counts the uncompressed bytes of a gzip file
     * @param what what is wrong there, in words ("an unescaped quote")
     */
    DamagedTraceException(Path file, long offset, boolean gzip, String what) {
        super((file == null ? "the trace" : file.toString()) + " is damaged"
                + (offset >= 0 ? " at byte " + offset + (gzip ? " of its uncompressed content" : "") : "")
                + ": " + what);
        this.offset = offset;
    }

    /** Returns the byte offset of the damage, or -1 when unknown. */
    public long offset() {
        return offset;
    }
}
