package dev.vantage.profiler.core.internal;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A fixed-length column of ints or longs, one per recorded event, kept off the heap in direct blocks of 16,384
 * values: what the analysis derives per event (parents, self times, where details start) costs the heap nothing
 * per event, so a run of tens of millions of events is analysed in a small heap. Not thread-safe: written while
 * the analysis is built, read after.
 */
final class Column {

    private static final int SHIFT = 14;
    private static final int BLOCK = 1 << SHIFT;
    private static final int MASK = BLOCK - 1;

    private final ByteBuffer[] blocks;
    private final int width;
    private final int size;

    private Column(int size, int width, long fill) {
        this.size = size;
        this.width = width;
        this.blocks = new ByteBuffer[(size + MASK) >>> SHIFT];
        for (int b = 0; b < blocks.length; b++) {
            blocks[b] = ByteBuffer.allocateDirect(Math.min(BLOCK, size - (b << SHIFT)) * width)
                    .order(ByteOrder.nativeOrder());
        }
        if (fill != 0) {
            for (int i = 0; i < size; i++) {
                set(i, fill);
            }
        }
    }

    /** A column of {@code size} ints, each {@code fill}. */
    static Column ints(int size, int fill) {
        return new Column(size, Integer.BYTES, fill);
    }

    /** A column of {@code size} longs, each {@code fill}. */
    static Column longs(int size, long fill) {
        return new Column(size, Long.BYTES, fill);
    }

    /** Returns the number of values. */
    int size() {
        return size;
    }

    /** Returns a value; an int column's widened to long. */
    long get(int i) {
        ByteBuffer b = blocks[i >>> SHIFT];
        int at = (i & MASK) * width;
        return width == Long.BYTES ? b.getLong(at) : b.getInt(at);
    }

    /** Returns a value of an int column. */
    int getInt(int i) {
        return blocks[i >>> SHIFT].getInt((i & MASK) * Integer.BYTES);
    }

    /** Sets a value; an int column keeps its low 32 bits. */
    void set(int i, long value) {
        ByteBuffer b = blocks[i >>> SHIFT];
        int at = (i & MASK) * width;
        if (width == Long.BYTES) {
            b.putLong(at, value);
        } else {
            b.putInt(at, (int) value);
        }
    }

    /** Adds to a value. */
    void add(int i, long delta) {
        set(i, get(i) + delta);
    }

    @Override
    public String toString() {
        long[] head = new long[Math.min(size, 8)];
        Arrays.setAll(head, this::get);
        return "Column" + Arrays.toString(head) + (size > head.length ? "..." : "");
    }
}
