package dev.vantage.device.kit.memory;

import static dev.vantage.profiler.api.MemoryTracker.formatSize;

/**
 * A device allocation that failed for lack of memory, after the allocator freed its cache and asked again. The
 * message is one line shaped as torch's: the request and, when it needed more of the device than itself, the
 * segment it needed (a small request takes a whole 2 MiB segment), the capacity, the cap when one is set and what
 * is free under it, and how much of the held memory is allocated and how much only reserved. Its figures add up:
 * with a cap, reserved plus free is the cap, and the segment asked for is more than the free bytes.
 */
public final class DeviceOutOfMemoryError extends OutOfMemoryError {

    private static final long serialVersionUID = 1L;

    private final String device;
    private final long requested;
    private final long allocated;
    private final long reserved;
    private final long free;
    private final long capacity;
    private final long limit;
    private final long segment;

    /**
     * Creates the error.
     *
     * @param device the device, such as {@code npu:0}
     * @param requested the bytes asked for
     * @param allocated the bytes handed out
     * @param reserved the bytes held from the device
     * @param free the bytes the device could still give
     * @param capacity the bytes the device has
     * @param limit the cap on what the allocator may hold, or 0 for none
     */
    public DeviceOutOfMemoryError(String device, long requested, long allocated, long reserved, long free,
            long capacity, long limit) {
        this(device, requested, requested, allocated, reserved, free, capacity, limit);
    }

    /**
     * Creates the error for a request that needed a segment of the device larger than itself.
     *
     * @param device the device, such as {@code npu:0}
     * @param requested the bytes asked for
     * @param segment the bytes the allocator asked of the device for it (a whole segment), at least
     *     {@code requested}
     * @param allocated the bytes handed out
     * @param reserved the bytes held from the device
     * @param free the bytes the device could still give, within the cap
     * @param capacity the bytes the device has
     * @param limit the cap on what the allocator may hold, or 0 for none
     */
    public DeviceOutOfMemoryError(String device, long requested, long segment, long allocated, long reserved,
            long free, long capacity, long limit) {
        super(message(device, requested, segment, allocated, reserved, free, capacity, limit));
        this.device = device;
        this.requested = requested;
        this.segment = Math.max(segment, requested);
        this.allocated = allocated;
        this.reserved = reserved;
        this.free = free;
        this.capacity = capacity;
        this.limit = limit;
    }

    private static String message(String device, long requested, long segment, long allocated, long reserved,
            long free, long capacity, long limit) {
        return device + " out of memory. Tried to allocate " + formatSize(requested)
                + (requested > 1024 ? " (" + requested + " bytes)" : "")
                + (segment > requested ? ", which needs a new segment of " + formatSize(segment) : "") + ". "
                + device + " has a total capacity of " + formatSize(capacity)
                + (limit > 0 ? ", limited to " + formatSize(limit) + " for this process," : "") + " of which "
                + formatSize(free) + " is free. Of the allocated memory " + formatSize(allocated)
                + " is allocated by tensors, and " + formatSize(reserved - allocated)
                + " is reserved by the caching allocator but unallocated.";
    }

    /** Returns the device. */
    public String device() {
        return device;
    }

    /** Returns the bytes asked for. */
    public long requested() {
        return requested;
    }

    /** Returns the bytes handed out when the allocation failed. */
    public long allocated() {
        return allocated;
    }

    /** Returns the bytes held from the device when the allocation failed. */
    public long reserved() {
        return reserved;
    }

    /** Returns the bytes the device could still give. */
    public long free() {
        return free;
    }

    /** Returns the device's capacity. */
    public long capacity() {
        return capacity;
    }

    /** Returns the bytes the allocator asked of the device for the request: its segment, or the request itself. */
    public long segment() {
        return segment;
    }

    /** Returns the cap on the allocator, or 0 for none. */
    public long limit() {
        return limit;
    }
}
