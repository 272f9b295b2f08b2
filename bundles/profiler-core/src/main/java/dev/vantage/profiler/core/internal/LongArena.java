package dev.vantage.profiler.core.internal;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.function.Supplier;

/**
 * An append-only sequence of longs in off-heap blocks, for the variable-size details some events carry (input
 * shapes, stack ids, autograd links). Written by one thread; read after the writer's size was published.
 */
final class LongArena {

    static final int BLOCK_SHIFT = 15;
    static final int BLOCK_LONGS = 1 << BLOCK_SHIFT;
    static final int BLOCK_MASK = BLOCK_LONGS - 1;

    private static final int BLOCK_BYTES = BLOCK_LONGS * Long.BYTES;

    private final Supplier<ByteBuffer> source;
    private ByteBuffer[] blocks = new ByteBuffer[4];
    /** The block the next value goes into, or null when the next value starts a block. */
    private ByteBuffer current;
    /** Where the next value goes in {@link #current}, in bytes. */
    private int offset;
    private long size;

    /** An arena whose blocks come from {@code source}, which answers null when memory ran out. */
    LongArena(Supplier<ByteBuffer> source) {
        this.source = source;
    }

    /** Appends a value; returns false when no memory is left for a new block. */
    boolean add(long value) {
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
        if (offset == BLOCK_BYTES) {
            current = null;
        }
        return true;
    }

    /** Makes the block at {@code size} current, taking one when it has none; null when memory ran out. */
    private ByteBuffer nextBlock() {
        int b = (int) (size >>> BLOCK_SHIFT);
        if (b == blocks.length) {
            blocks = Arrays.copyOf(blocks, b * 2);
        }
        if (blocks[b] == null) {
            blocks[b] = source.get();
            if (blocks[b] == null) {
                return null;
            }
        }
        current = blocks[b];
        offset = 0;
        return current;
    }

    /** Returns the blocks, for recycling once nothing can read or write them. */
    ByteBuffer[] blocks() {
        return blocks;
    }

    long size() {
        return size;
    }

    /** Undoes appends back to a size, when an event's details did not fit. */
    void truncate(long newSize) {
        size = newSize;
        offset = (int) (newSize & BLOCK_MASK) * Long.BYTES;
        current = offset == 0 ? null : blocks[(int) (newSize >>> BLOCK_SHIFT)];
    }

    long get(long index) {
        return blocks[(int) (index >>> BLOCK_SHIFT)].getLong((int) (index & BLOCK_MASK) << 3);
    }

    /** A read-only view frozen at a size. */
    View view(long frozenSize) {
        return new View(blocks.clone(), frozenSize);
    }

    /** What a reader sees of an arena. */
    record View(ByteBuffer[] blocks, long size) {
        long get(long index) {
            return blocks[(int) (index >>> BLOCK_SHIFT)].getLong((int) (index & BLOCK_MASK) << 3);
        }
    }
}
