package dev.vantage.trace.engine.read;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The account of what reading one damaged trace file repaired and skipped: a count per kind of damage and the byte
 * offset of the first. Readers report here ({@link #repaired}, {@link #skipped}); a strict account refuses the file
 * at the first report instead ({@link DamagedTraceException}, with the byte offset). {@link #line} is the one line a
 * verb prints about a file that needed either; a clean read leaves the account empty.
 *
 * <p>What is a repair and what a skip: a repair keeps what the file meant when it has one obvious reading (an
 * unescaped quote inside a string, a key without a value, {@code NaN}, two complete events on one thread that
 * overlap), a skip leaves out what has none (an event cut off by the end of the file, an event whose bytes make no
 * sense). Offsets are in the file's bytes, of its uncompressed content for a gzip file. Not thread-safe: one account
 * per file read.
 */
public final class TraceRepairs {

    /** What can be wrong with a trace, each with the words its count is printed with. */
    public enum Kind {
        /** A {@code "} inside a string that the writer did not escape (kineto#1184). */
        UNESCAPED_QUOTE(true, "unescaped quote", "unescaped quotes"),
        /** {@code "key": ,}: a key without a value, read as null (pytorch#172353). */
        MISSING_VALUE(true, "key without a value", "keys without a value"),
        /** {@code NaN}, {@code Infinity} or {@code -Infinity} where JSON needs a number, read as null. */
        NOT_A_NUMBER(true, "NaN or Infinity", "NaNs or Infinities"),
        /** Text without quotes where a value goes ({@code N/A}), read as a string. */
        UNQUOTED_TEXT(true, "unquoted text", "unquoted texts"),
        /** A control character (a raw newline, say) inside a string, read as its escape. */
        CONTROL_CHARACTER(true, "control character in a string", "control characters in strings"),
        /** A backslash that starts no JSON escape ({@code C:\temp}), read as a backslash. */
        INVALID_ESCAPE(true, "invalid escape", "invalid escapes"),
        /** Bytes that are not UTF-8 inside a string, read as U+FFFD. */
        INVALID_UTF8(true, "invalid UTF-8 byte", "invalid UTF-8 bytes"),
        /** A comma before a closing bracket. */
        TRAILING_COMMA(true, "trailing comma", "trailing commas"),
        /** Two values without the comma between them. */
        MISSING_COMMA(true, "missing comma", "missing commas"),
        /** An event that names one of its fields twice: the last value is kept, as JSON parsers keep it. */
        DUPLICATE_KEY(true, "duplicate key", "duplicate keys"),
        /** A file that ends without closing its brackets, after a complete event: closed. */
        UNCLOSED(true, "missing end of file", "missing ends of file"),
        /**
         * A complete event that starts inside another on its thread and ends more than a microsecond after it
         * (pytorch#174555): read as its sibling, as torch's own event tree reads it.
         */
        OVERLAP(true, "overlapping event", "overlapping events"),
        /** The last event, cut off by the end of the file (a job killed while writing). */
        CUT_OFF(false, "event cut off by the end of the file", "events cut off by the end of the file"),
        /** An event whose bytes have no one reading. */
        DAMAGED_EVENT(false, "damaged event", "damaged events"),
        /** A Perfetto packet whose content does not parse. */
        DAMAGED_PACKET(false, "damaged packet", "damaged packets"),
        /** A Perfetto packet cut off by the end of the file. */
        CUT_PACKET(false, "packet cut off by the end of the file", "packets cut off by the end of the file"),
        /** The rest of a Perfetto trace from where its packets stop being framed. */
        UNREADABLE_REST(false, "unreadable rest of the file", "unreadable rests of the file");

        private final boolean repair;
        private final String one;
        private final String many;

        Kind(boolean repair, String one, String many) {
            this.repair = repair;
            this.one = one;
            this.many = many;
        }

        /** Whether a reader keeps what the damage meant (true) or leaves it out (false). */
        public boolean isRepair() {
            return repair;
        }

        /** The count with its words: "1 unescaped quote", "3 unescaped quotes". */
        String count(long n) {
            return n + " " + (n == 1 ? one : many);
        }

        /** The words for one: "an unescaped quote". */
        String one() {
            return (one.matches("[aeiouAEIOU].*") ? "an " : "a ") + one;
        }
    }

    private final boolean strict;
    private final Map<Kind, Long> counts = new EnumMap<>(Kind.class);
    private long firstOffset = -1;
    private Kind firstKind;
    private boolean gzip;
    private Path file;

    /**
     * @param strict whether the first damage refuses the file ({@link DamagedTraceException}) instead of being
     *     repaired or skipped
     */
    public TraceRepairs(boolean strict) {
        this.strict = strict;
    }

    /** Whether this account refuses damage instead of counting it. */
    public boolean strict() {
        return strict;
    }

    /** Names the file the offsets are in, and whether they count its uncompressed bytes. */
    void file(Path read, boolean gzipped) {
        this.file = read;
        this.gzip = gzipped;
    }

    /**
     * Counts a repair.
     *
     * @param offset the byte offset of the damage, or -1 when unknown
     * @throws DamagedTraceException if this account is strict
     */
    void repaired(Kind kind, long offset) throws DamagedTraceException {
        report(kind, offset, 1);
    }

    /**
     * Counts something left out.
     *
     * @throws DamagedTraceException if this account is strict
     */
    void skipped(Kind kind, long offset) throws DamagedTraceException {
        report(kind, offset, 1);
    }

    /** Counts {@code n} of a kind at once; the offset is the first one's. */
    void report(Kind kind, long offset, long n) throws DamagedTraceException {
        if (n <= 0) {
            return;
        }
        if (strict) {
            throw new DamagedTraceException(file, offset, gzip, kind.one());
        }
        counts.merge(kind, n, Long::sum);
        if (offset >= 0 && (firstOffset < 0 || offset < firstOffset)) {
            firstOffset = offset;
            firstKind = kind;
        }
    }

    /** A refusal of the file for damage that has no reading at all, at a byte offset. */
    DamagedTraceException refusal(long offset, String what) {
        return new DamagedTraceException(file, offset, gzip, what);
    }

    /** A refusal for damage in the file's own bytes (a gzip header), at an offset of the file, not of its content. */
    DamagedTraceException fileRefusal(long offset, String what) {
        return new DamagedTraceException(file, offset, false, what);
    }

    /** The refusal of a damaged file in which no event was readable. */
    DamagedTraceException nothingReadable() {
        return new DamagedTraceException(file, firstOffset, gzip,
                (firstKind == null ? "damage" : firstKind.one()) + ", and no readable event in it");
    }

    /** Forgets every count: a reader that starts the file again (the repairing pass) counts afresh. */
    void clear() {
        counts.clear();
        firstOffset = -1;
        firstKind = null;
    }

    /** Whether nothing was repaired or skipped. */
    public boolean isClean() {
        return counts.isEmpty();
    }

    /** Returns how many of a kind were counted. */
    public long count(Kind kind) {
        return counts.getOrDefault(kind, 0L);
    }

    /** Returns the byte offset of the first damage, or -1. */
    public long firstOffset() {
        return firstOffset;
    }

    /**
     * The one line a verb prints about the file: what was repaired, what skipped, and the first byte offset; null
     * when the read was clean. For example {@code x.json: repaired 2 unescaped quotes, 1 key without a value;
     * skipped 1 event cut off by the end of the file; first at byte 10432 (an unescaped quote)}.
     */
    public String line(String name) {
        if (counts.isEmpty()) {
            return null;
        }
        List<String> repaired = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        counts.forEach((k, n) -> (k.isRepair() ? repaired : skipped).add(k.count(n)));
        StringBuilder b = new StringBuilder(name).append(':');
        if (!repaired.isEmpty()) {
            b.append(" repaired ").append(String.join(", ", repaired));
        }
        if (!skipped.isEmpty()) {
            b.append(repaired.isEmpty() ? " " : "; ").append("skipped ").append(String.join(", ", skipped));
        }
        if (firstOffset >= 0) {
            b.append("; first at byte ").append(firstOffset).append(gzip ? " of its uncompressed content" : "")
                    .append(" (").append(firstKind.one()).append(')');
        }
        return b.append("; --strict refuses such a file").toString();
    }
}
