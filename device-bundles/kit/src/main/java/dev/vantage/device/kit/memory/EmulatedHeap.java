package dev.vantage.device.kit.memory;

import java.util.Map;
import java.util.TreeMap;

/**
 * An emulated device's memory: an address range of a given capacity from which ranges are handed out first fit
 * and taken back with their free neighbours merged, so that freed memory is handed out again and addresses stay
 * within the range. Thread-safe.
 */
public final class EmulatedHeap implements DeviceHeap {

    private final long base;
    private final long capacity;
    private final TreeMap<Long, Long> free = new TreeMap<>();
    private final TreeMap<Long, Long> used = new TreeMap<>();
    private long usedBytes;

    /**
     * Creates a heap.
     *
     * @param base the first address
     * @param capacity the bytes it has; positive
     */
    public EmulatedHeap(long base, long capacity) {
        if (capacity <= 0 || base < 0) {
            throw new IllegalArgumentException("a device heap needs a positive capacity and a non-negative base;"
                    + " got " + capacity + " at " + base);
        }
        this.base = base;
        this.capacity = capacity;
        free.put(base, capacity);
    }

    @Override
    public long capacity() {
        return capacity;
    }

    @Override
    public synchronized long used() {
        return usedBytes;
    }

    /** Returns the first address of the range. */
    public long base() {
        return base;
    }

    @Override
    public synchronized long malloc(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("a device allocation needs a positive size, not " + bytes);
        }
        for (Map.Entry<Long, Long> e : free.entrySet()) {
            long length = e.getValue();
            if (length >= bytes) {
                // read before removing: a removed TreeMap entry may take its successor's key and value
                long address = e.getKey();
                free.remove(address);
                if (length > bytes) {
                    free.put(address + bytes, length - bytes);
                }
                used.put(address, bytes);
                usedBytes += bytes;
                return address;
            }
        }
        return -1;
    }

    @Override
    public synchronized void free(long address, long bytes) {
        Long size = used.get(address);
        if (size == null || size != bytes) {
            throw new IllegalArgumentException("no range of " + bytes + " bytes at 0x" + Long.toHexString(address)
                    + " was handed out");
        }
        used.remove(address);
        usedBytes -= bytes;
        long start = address;
        long length = bytes;
        Map.Entry<Long, Long> before = free.floorEntry(address);
        if (before != null && before.getKey() + before.getValue() == address) {
            start = before.getKey();
            length += before.getValue();
            free.remove(start);
        }
        Long after = free.get(address + bytes);
        if (after != null) {
            free.remove(address + bytes);
            length += after;
        }
        free.put(start, length);
    }
}
