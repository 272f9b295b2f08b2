package dev.vantage.launcher.ranks;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Copies one rank's output to the launcher's stream line by line, each line behind a prefix such as
 * {@code [rank0]: }.
 *
 * <p>Bytes are split at {@code \n} (a {@code \r} before it goes too) and passed through undecoded, so a character
 * that arrives in two reads stays whole. Each line, prefix and line separator included, reaches the target in one
 * {@code write}, which {@link PrintStream} makes atomic: ranks writing to the same stream never interleave within a
 * line. A last line without {@code \n} is written by {@link #finish()}. One instance serves one source and is not
 * safe for use by several threads.
 */
final class PrefixedLines {

    /** A line longer than this is written in parts, so a rank that never ends a line cannot fill the heap. */
    static final int MAX_LINE_BYTES = 1 << 20;

    private final byte[] prefix;
    private final PrintStream to;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream(256);
    private final byte[] separator = System.lineSeparator().getBytes(StandardCharsets.US_ASCII);

    /**
     * @param prefix written before every line, such as {@code [rank0]: }
     * @param to the stream the lines go to
     */
    PrefixedLines(String prefix, PrintStream to) {
        this.prefix = Objects.requireNonNull(prefix, "prefix").getBytes(StandardCharsets.UTF_8);
        this.to = Objects.requireNonNull(to, "to");
    }

    /** Returns the prefix of rank {@code rank}'s lines, as torchrun prints them: {@code [rank<R>]: }. */
    static String prefixOf(int rank) {
        return "[rank" + rank + "]: ";
    }

    /** Takes the next {@code length} bytes of the source, writing every line they complete. */
    void accept(byte[] bytes, int offset, int length) {
        int start = offset;
        int end = offset + length;
        for (int i = offset; i < end; i++) {
            if (bytes[i] == '\n') {
                line.write(bytes, start, i - start);
                emit();
                start = i + 1;
            } else if (line.size() + (i - start) >= MAX_LINE_BYTES) {
                line.write(bytes, start, i - start);
                emit();
                start = i;
            }
        }
        line.write(bytes, start, end - start);
    }

    /** Writes what is left of a last line that had no {@code \n}; nothing if there is none. */
    void finish() {
        if (line.size() > 0) {
            emit();
        }
    }

    /**
     * Reads {@code in} to its end, writing its lines, then the last unfinished one; closes {@code in}.
     *
     * @throws IOException if reading fails; the lines read before are written
     */
    void copy(InputStream in) throws IOException {
        try (in) {
            byte[] buffer = new byte[8192];
            for (int n; (n = in.read(buffer)) >= 0; ) {
                accept(buffer, 0, n);
            }
        } finally {
            finish();
        }
    }

    private void emit() {
        byte[] body = line.toByteArray();
        int length = body.length;
        if (length > 0 && body[length - 1] == '\r') {
            length--;
        }
        byte[] out = new byte[prefix.length + length + separator.length];
        System.arraycopy(prefix, 0, out, 0, prefix.length);
        System.arraycopy(body, 0, out, prefix.length, length);
        System.arraycopy(separator, 0, out, prefix.length + length, separator.length);
        to.write(out, 0, out.length);
        to.flush();
        line.reset();
    }
}
