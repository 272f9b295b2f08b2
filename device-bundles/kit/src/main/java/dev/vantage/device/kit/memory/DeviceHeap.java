package dev.vantage.device.kit.memory;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A device's memory as its driver hands it out ({@code cudaMalloc}, {@code aclrtMalloc}): where an allocator's
 * segments come from and go back to. Implementations are thread-safe.
 */
@ConsumerType
public interface DeviceHeap {

    /** Returns the bytes the device has. */
    long capacity();

    /** Returns the bytes handed out now. */
    long used();

    /**
     * Hands out a contiguous range.
     *
     * @param bytes a positive size
     * @return the range's first address, or -1 if the device has no free range that large
     */
    long malloc(long bytes);

    /**
     * Takes back a range {@link #malloc} handed out.
     *
     * @throws IllegalArgumentException if the range was not handed out
     */
    void free(long address, long bytes);
}
