package dev.vantage.trace.engine.store;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The engine's one column: a growable sequence of bytes, ints or longs in equal blocks that a {@link BlockSource}
 * hands out (on the heap, off it, or mapped from a file for traces larger than memory), so no value is an object and
 * a column of tens of millions of values costs the heap only its block array. The recorder appends an event's details
 * to one, the readers append every column of a file to them, and the analysis keeps what it derives per event in them.
 *
 * <p>A column that grows from nothing starts with a first block of {@value #FIRST_VALUES} values and doubles it up to a
 * whole block, so the many small columns of a trace with many threads cost little; a recorder's column takes whole
 * blocks from the start ({@link #longsInWholeBlocks}), since its blocks are recycled.
 *
 * <p>Concurrency: one writer. A reader on another thread reads only below a size the writer published to it
 * ({@link #frozen}), as the recorder publishes a thread's rows; blocks are never moved once taken.
 */
public final class Column {

    /** Values per block: 32,768, so a block of longs is 256 KiB. */
    public static final int BLOCK_SHIFT = 15;
    public static final int BLOCK_VALUES = 1 << BLOCK_SHIFT;
    private static final int BLOCK_MASK = BLOCK_VALUES - 1;

    /** The first block's capacity of a column that grows from nothing. */
    static final int FIRST_VALUES = 64;

    private final BlockSource source;
    private final int width;
    private final int shift;
    private ByteBuffer[] blocks;
    /** Values the first block holds: a whole block's, or less while a small column grows. */
    private int firstCapacity;
    /** The block the next value goes into, or null when the next value needs a new or larger block. */
    private ByteBuffer current;
    /** Where the next value goes in {@link #current}, in bytes. */
    private int offset;
    /** Where {@link #current} ends, in bytes. */
    private int limit;
    private long size;

    private Column(BlockSource source, int width, int firstCapacity, ByteBuffer[] blocks, long size) {
        this.source = source;
        this.width = width;
        this.shift = Integer.numberOfTrailingZeros(width);
        this.firstCapacity = firstCapacity;
        this.blocks = blocks;
        this.size = size;
    }

    /** An empty column of longs whose blocks come from {@code source}. */
    public static Column longs(BlockSource source) {
        return new Column(source, Long.BYTES, FIRST_VALUES, new ByteBuffer[4], 0);
    }

    /** An empty column of longs that takes whole blocks from the first value on: a recorder's, whose blocks recycle. */
    public static Column longsInWholeBlocks(BlockSource source) {
        return new Column(source, Long.BYTES, BLOCK_VALUES, new ByteBuffer[4], 0);
    }

    /** An empty column of ints. */
    public static Column ints(BlockSource source) {
        return new Column(source, Integer.BYTES, FIRST_VALUES, new ByteBuffer[4], 0);
    }

    /** An empty column of bytes. */
    public static Column bytes(BlockSource source) {
        return new Column(source, 1, FIRST_VALUES, new ByteBuffer[4], 0);
    }

    /** A column of {@code size} longs, each {@code fill}. */
    public static Column longs(BlockSource source, long size, long fill) {
        return filled(new Column(source, Long.BYTES, firstCapacity(size), new ByteBuffer[4], 0), size, fill);
    }

    /** A column of {@code size} ints, each {@code fill}. */
    public static Column ints(BlockSource source, long size, int fill) {
        return filled(new Column(source, Integer.BYTES, firstCapacity(size), new ByteBuffer[4], 0), size, fill);
    }

    private static int firstCapacity(long size) {
        return (int) Math.max(1, Math.min(BLOCK_VALUES, size));
    }

    /**
     * Takes the blocks of {@code size} values at once. A block comes zeroed, so a fill of 0 writes nothing; any other
     * fill is written into the first block and copied into the others in bulk. Value by value, the analysis of a
     * recorded million events spent a third of its time here.
     */
    private static Column filled(Column c, long size, long fill) {
        ByteBuffer first = null;
        for (long at = 0; at < size; at += BLOCK_VALUES) {
            int b = (int) (at >>> BLOCK_SHIFT);
            if (b == c.blocks.length) {
                c.blocks = Arrays.copyOf(c.blocks, b * 2);
            }
            int capacity = b == 0 ? c.firstCapacity : BLOCK_VALUES;
            ByteBuffer block = c.source.take(capacity << c.shift);
            if (block == null) {
                throw new OutOfMemoryError("no block for a column of " + size + " values");
            }
            c.blocks[b] = block;
            int values = (int) Math.min(capacity, size - at);
            if (fill != 0) {
                if (first == null) {
                    for (int i = 0; i < values; i++) {
                        c.put(block, i << c.shift, fill);
                    }
                    first = block;
                } else {
                    block.put(0, first, 0, values << c.shift);
                }
            }
        }
        c.size = size;
        c.current = null;
        return c;
    }

    /**
     * Appends a value (an int column keeps its low 32 bits, a byte column its low 8); returns false, appending
     * nothing, when the source had no block left.
     */
    public boolean add(long value) {
        ByteBuffer block = current;
        if (block == null) {
            block = nextBlock();
            if (block == null) {
                return false;
            }
        }
        put(block, offset, value);
        offset += width;
        size++;
        if (offset == limit) {
            current = null;
        }
        return true;
    }

    /**
     * Appends a value to a long column; returns false, appending nothing, when the source had no block left. The
     * recorder's path: no switch on the width.
     */
    public boolean addLong(long value) {
        ByteBuffer block = current;
        if (block == null) {
            block = nextBlock();
            if (block == null) {
                return false;
            }
        }
        block.putLong(offset, value);
        offset += Long.BYTES;
        size++;
        if (offset == limit) {
            current = null;
        }
        return true;
    }

    /** Appends a value, failing with {@link OutOfMemoryError} when the source has no block left. */
    public void append(long value) {
        if (!add(value)) {
            throw new OutOfMemoryError("no block left for a column");
        }
    }

    private ByteBuffer nextBlock() {
        int b = (int) (size >>> BLOCK_SHIFT);
        if (b == blocks.length) {
            blocks = Arrays.copyOf(blocks, b * 2);
        }
        int capacity = b == 0 ? firstCapacity : BLOCK_VALUES;
        if (b == 0 && blocks[0] != null && size == firstCapacity) {
            // a small column outgrew its first block: a larger one replaces it
            int larger = Math.min(BLOCK_VALUES, firstCapacity * 2);
            ByteBuffer grown = source.take(larger << shift);
            if (grown == null) {
                return null;
            }
            grown.put(0, blocks[0], 0, firstCapacity << shift);
            blocks[0] = grown;
            firstCapacity = capacity = larger;
        }
        if (blocks[b] == null) {
            blocks[b] = source.take(capacity << shift);
            if (blocks[b] == null) {
                return null;
            }
        }
        current = blocks[b];
        offset = (int) (size & BLOCK_MASK) << shift;
        limit = capacity << shift;
        return current;
    }

    private void put(ByteBuffer block, int at, long value) {
        switch (width) {
            case Long.BYTES -> block.putLong(at, value);
            case Integer.BYTES -> block.putInt(at, (int) value);
            default -> block.put(at, (byte) value);
        }
    }

    /** Returns the number of values. */
    public long size() {
        return size;
    }

    /** Returns a value; an int or byte column's widened to long (signed). */
    public long get(long i) {
        ByteBuffer b = blocks[(int) (i >>> BLOCK_SHIFT)];
        int at = (int) (i & BLOCK_MASK) << shift;
        return switch (width) {
            case Long.BYTES -> b.getLong(at);
            case Integer.BYTES -> b.getInt(at);
            default -> b.get(at);
        };
    }

    /** Returns a value of an int column. */
    public int getInt(long i) {
        return blocks[(int) (i >>> BLOCK_SHIFT)].getInt((int) (i & BLOCK_MASK) << 2);
    }

    /** Returns a value of a long column. */
    public long getLong(long i) {
        return blocks[(int) (i >>> BLOCK_SHIFT)].getLong((int) (i & BLOCK_MASK) << 3);
    }

    /** Sets a value below the size. */
    public void set(long i, long value) {
        put(blocks[(int) (i >>> BLOCK_SHIFT)], (int) (i & BLOCK_MASK) << shift, value);
    }

    /** Adds to a value below the size. */
    public void add(long i, long delta) {
        set(i, get(i) + delta);
    }

    /** Undoes appends back to a size, as when an event's details did not fit. */
    public void truncate(long newSize) {
        size = newSize;
        int b = (int) (newSize >>> BLOCK_SHIFT);
        offset = (int) (newSize & BLOCK_MASK) << shift;
        limit = (b == 0 ? firstCapacity : BLOCK_VALUES) << shift;
        current = offset == 0 || offset == limit ? null : blocks[b];
    }

    /**
     * Returns a read-only view of the first {@code frozenSize} values, sharing the blocks: what a reader on another
     * thread may see once the writer published that size.
     */
    public Column frozen(long frozenSize) {
        if (frozenSize > size) {
            throw new IllegalArgumentException("a view of " + frozenSize + " values of a column of " + size);
        }
        return new Column(BlockSource.NONE, width, firstCapacity, blocks.clone(), frozenSize);
    }

    /** Returns the blocks taken so far (null beyond them), so that their owner can recycle them. */
    public ByteBuffer[] blocks() {
        return blocks;
    }

    /** Sorts the values of a long column ascending, in place: a heap sort, no memory beyond the column. */
    public void sort() {
        long n = size;
        for (long i = n / 2 - 1; i >= 0; i--) {
            siftDown(i, n);
        }
        for (long end = n - 1; end > 0; end--) {
            long t = get(0);
            set(0, get(end));
            set(end, t);
            siftDown(0, end);
        }
    }

    private void siftDown(long i, long n) {
        long v = get(i);
        while (true) {
            long child = 2 * i + 1;
            if (child >= n) {
                break;
            }
            long c = get(child);
            if (child + 1 < n) {
                long r = get(child + 1);
                if (r > c) {
                    child++;
                    c = r;
                }
            }
            if (c <= v) {
                break;
            }
            set(i, c);
            i = child;
        }
        set(i, v);
    }

    @Override
    public String toString() {
        long[] head = new long[(int) Math.min(size, 8)];
        for (int i = 0; i < head.length; i++) {
            head[i] = get(i);
        }
        return "Column" + Arrays.toString(head) + (size > head.length ? "..." : "");
    }
}
