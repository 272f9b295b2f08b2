package dev.vantage.trace.engine.store;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * One thread's host events as the engine keeps them: 24-byte rows (start, end, name id, and a word holding the kind,
 * whether the event has details and its nesting depth) in blocks of 16,384 rows. The recorder writes these rows
 * directly into blocks it owns and hands them over frozen ({@link #of}); a reader appends them ({@link #add}).
 * Events are in the order they began, each at the depth it was recorded (or nested, for a file) at, which is all
 * the analysis needs to link every event to its parent in one pass.
 *
 * <p>Not thread-safe; a frozen view is immutable.
 */
public final class HostRows {

    public static final int CHUNK_SHIFT = 14;
    public static final int CHUNK_ROWS = 1 << CHUNK_SHIFT;
    public static final int CHUNK_MASK = CHUNK_ROWS - 1;
    public static final int ROW_BYTES = 24;
    public static final int CHUNK_BYTES = CHUNK_ROWS * ROW_BYTES;
    /** Offsets in a row. */
    public static final int START = 0;
    public static final int END = 8;
    public static final int HEADER = 16;

    public static final int KIND_MASK = 0xF;
    public static final int DETAILS_FLAG = 0x10;
    public static final int DEPTH_SHIFT = 5;

    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private final BlockSource source;
    private ByteBuffer[] chunks;
    /** Rows the first chunk holds: a whole chunk's, or less while a reader's small thread grows. */
    private int firstCapacity;
    private int size;

    private HostRows(BlockSource source, ByteBuffer[] chunks, int firstCapacity, int size) {
        this.source = source;
        this.chunks = chunks;
        this.firstCapacity = firstCapacity;
        this.size = size;
    }

    /** The first {@code size} rows of chunks a recorder wrote: a frozen view. */
    public static HostRows of(ByteBuffer[] chunks, int size) {
        return new HostRows(BlockSource.NONE, chunks, CHUNK_ROWS, size);
    }

    /** An empty, growable set of rows whose blocks come from {@code source}. */
    public static HostRows growable(BlockSource source) {
        return new HostRows(source, new ByteBuffer[4], 64, 0);
    }

    /** The name id and kind word as the one long stored at {@link #HEADER}, laid out as the two ints read back. */
    public static long header(int nameId, int kindWord) {
        return LITTLE_ENDIAN ? (nameId & 0xFFFF_FFFFL) | ((long) kindWord << 32)
                : ((long) nameId << 32) | (kindWord & 0xFFFF_FFFFL);
    }

    /** The kind word of an event: its kind, whether it has details, its depth. */
    public static int kindWord(int kind, boolean withDetails, int depth) {
        return kind | (withDetails ? DETAILS_FLAG : 0) | (depth << DEPTH_SHIFT);
    }

    /** Appends a row. */
    public void add(long startNanos, long endNanos, int nameId, int kind, boolean withDetails, int depth) {
        int c = size >>> CHUNK_SHIFT;
        if (c == 0 && size == firstCapacity && chunks[0] != null) {
            // a small thread outgrew its first chunk: a larger one replaces it
            int larger = Math.min(CHUNK_ROWS, firstCapacity * 2);
            ByteBuffer grown = take(larger * ROW_BYTES);
            grown.put(0, chunks[0], 0, firstCapacity * ROW_BYTES);
            chunks[0] = grown;
            firstCapacity = larger;
        } else if ((size & CHUNK_MASK) == 0) {
            if (c == chunks.length) {
                chunks = Arrays.copyOf(chunks, c * 2);
            }
            chunks[c] = take(c == 0 ? firstCapacity * ROW_BYTES : CHUNK_BYTES);
        }
        ByteBuffer chunk = chunks[c];
        int at = (size & CHUNK_MASK) * ROW_BYTES;
        chunk.putLong(at + START, startNanos);
        chunk.putLong(at + END, endNanos);
        chunk.putLong(at + HEADER, header(nameId, kindWord(kind, withDetails, depth)));
        size++;
    }

    private ByteBuffer take(int bytes) {
        ByteBuffer b = source.take(bytes);
        if (b == null) {
            throw new OutOfMemoryError("no block left for a trace's rows");
        }
        return b;
    }

    public int size() {
        return size;
    }

    private ByteBuffer chunk(int i) {
        return chunks[i >>> CHUNK_SHIFT];
    }

    private static int at(int i) {
        return (i & CHUNK_MASK) * ROW_BYTES;
    }

    public long start(int i) {
        return chunk(i).getLong(at(i) + START);
    }

    /** The end as written: 0 for an event still open when its rows were handed over. */
    public long end(int i) {
        return chunk(i).getLong(at(i) + END);
    }

    public int name(int i) {
        return chunk(i).getInt(at(i) + HEADER);
    }

    public int kind(int i) {
        return chunk(i).getInt(at(i) + HEADER + 4) & KIND_MASK;
    }

    public boolean hasDetails(int i) {
        return (chunk(i).getInt(at(i) + HEADER + 4) & DETAILS_FLAG) != 0;
    }

    public int depth(int i) {
        return chunk(i).getInt(at(i) + HEADER + 4) >>> DEPTH_SHIFT;
    }

    /** Returns the first {@code n} rows as a frozen view. */
    public HostRows first(int n) {
        return n == size ? this : new HostRows(BlockSource.NONE, chunks, firstCapacity, n);
    }
}
