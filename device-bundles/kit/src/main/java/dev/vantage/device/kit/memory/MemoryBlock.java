package dev.vantage.device.kit.memory;

import java.util.List;

import dev.vantage.profiler.api.MemorySnapshot.Frame;

/**
 * A block of device memory handed out by a {@link BlockAllocator}: the caller's handle, given back to
 * {@link BlockAllocator#free} once. Its address and size do not change while it is handed out.
 */
public final class MemoryBlock {

    long address;
    long size;
    long requested;
    int stream;
    boolean small;
    boolean allocated;
    /** Whether a caller ever held it; only a block no caller ever held may be reused as another. */
    boolean everHandedOut;
    MemoryBlock prev;
    MemoryBlock next;
    MemoryBlock head;
    List<Frame> frames = List.of();

    /**
     * Creates a block; for allocators other than {@link CachingAllocator}.
     *
     * @param address its first address
     * @param size its size in bytes, after rounding
     * @param stream the stream it serves
     * @param small whether it belongs to the small pool
     */
    public MemoryBlock(long address, long size, int stream, boolean small) {
        this.address = address;
        this.size = size;
        this.stream = stream;
        this.small = small;
    }

    /** Returns its first address. */
    public long address() {
        return address;
    }

    /** Returns its size in bytes, after rounding. */
    public long size() {
        return size;
    }

    /** Returns the bytes that were asked for. */
    public long requested() {
        return requested;
    }

    /** Returns the stream it serves. */
    public int stream() {
        return stream;
    }

    /** Returns whether it belongs to the small pool. */
    public boolean small() {
        return small;
    }

    /** Returns whether it is handed out now. */
    public boolean allocated() {
        return allocated;
    }

    /**
     * Marks the block handed out or free; for allocators other than {@link CachingAllocator}, which keep the
     * rest of a block's state themselves.
     *
     * @param requestedBytes the bytes asked for when handed out
     * @param where the allocating code, or an empty list
     */
    public void handOut(long requestedBytes, List<Frame> where) {
        requested = requestedBytes;
        frames = where;
        allocated = true;
        everHandedOut = true;
    }

    /** Makes a block no caller ever held into a new free block. */
    void reuse(long newAddress, long newSize, int newStream, boolean inSmallPool) {
        address = newAddress;
        size = newSize;
        stream = newStream;
        small = inSmallPool;
        allocated = false;
        requested = 0;
        prev = null;
        next = null;
        head = null;
        frames = List.of();
    }

    /** Marks the block free; see {@link #handOut}. */
    public void takeBack() {
        allocated = false;
        requested = 0;
        frames = List.of();
    }

    /** Returns where it was allocated, innermost first, when the allocator recorded stacks; else empty. */
    public List<Frame> frames() {
        return frames;
    }

    @Override
    public String toString() {
        return "block 0x" + Long.toHexString(address) + " of " + size + " bytes on stream " + stream
                + (allocated ? " (allocated)" : " (free)");
    }
}
