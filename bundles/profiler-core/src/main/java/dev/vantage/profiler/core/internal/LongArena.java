package dev.vantage.profiler.core.internal;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * An append-only sequence of longs in off-heap blocks, for the variable-size details some events carry (input
 * shapes, stack ids, autograd links). Written by one thread; read after the writer's size was published.
 */
final class LongArena {

    static final int BLOCK_SHIFT = 15;
    static final int BLOCK_LONGS = 1 << BLOCK_SHIFT;
    static final int BLOCK_MASK = BLOCK_LONGS - 1;

    private ByteBuffer[] blocks = new ByteBuffer[4];
    private long size;

    /** Appends a value; returns false when no memory is left for a new block. */
    boolean add(long value) {
        int b = (int) (size >>> BLOCK_SHIFT);
        int i = (int) (size & BLOCK_MASK);
        if (i == 0) {
            if (b == blocks.length) {
                blocks = Arrays.copyOf(blocks, b * 2);
            }
            if (blocks[b] == null) {
                blocks[b] = OffHeap.DETAILS.take();
                if (blocks[b] == null) {
                    return false;
                }
            }
        }
        blocks[b].putLong(i << 3, value);
        size++;
        return true;
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
