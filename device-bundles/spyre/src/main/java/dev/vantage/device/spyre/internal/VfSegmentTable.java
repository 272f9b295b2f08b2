package dev.vantage.device.spyre.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * A device's VF segment table, built when the device initialises: its memory split into a fixed number of equal
 * segments, each a contiguous range of device addresses, as the VF-mode allocator pre-allocates its segments.
 * The segment size is the allocator's reservation unit.
 */
final class VfSegmentTable {

    /** How many segments a device's memory is split into, as the VF-mode allocator does. */
    static final int SEGMENTS = 8;

    /**
     * One segment.
     *
     * @param id its index, from 0
     * @param base its first device address
     * @param size its size in bytes
     */
    record Segment(int id, long base, long size) {
    }

    private final List<Segment> segments;
    private final long segmentSize;

    private VfSegmentTable(List<Segment> segments, long segmentSize) {
        this.segments = List.copyOf(segments);
        this.segmentSize = segmentSize;
    }

    /**
     * Returns the size of each segment for a capacity: an {@link #SEGMENTS}th of it, rounded up to the
     * alignment.
     */
    static long segmentSize(long capacity, int alignment) {
        long size = (capacity + SEGMENTS - 1) / SEGMENTS;
        return (size + alignment - 1) & -(long) alignment;
    }

    /**
     * Builds the table of a device's memory.
     *
     * @param capacity the device's bytes
     * @param alignment the allocator's alignment, a power of two
     * @param base the first device address
     */
    static VfSegmentTable build(long capacity, int alignment, long base) {
        long size = segmentSize(capacity, alignment);
        List<Segment> segments = new ArrayList<>(SEGMENTS);
        long left = capacity;
        for (int i = 0; i < SEGMENTS && left > 0; i++) {
            long s = Math.min(size, left);
            segments.add(new Segment(i, base + i * size, s));
            left -= s;
        }
        return new VfSegmentTable(segments, size);
    }

    /** Returns the segments, in address order. */
    List<Segment> segments() {
        return segments;
    }

    /** Returns the size of a full segment. */
    long segmentSize() {
        return segmentSize;
    }

    /** Returns the first address of the first segment. */
    long base() {
        return segments.get(0).base();
    }
}
