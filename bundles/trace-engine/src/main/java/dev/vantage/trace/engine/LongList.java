package dev.vantage.trace.engine;

import java.util.Arrays;

/** A growable list of longs, without a boxed object per value. Not thread-safe. */
final class LongList {

    private long[] values = new long[16];
    private int size;

    void add(long value) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = value;
    }

    void clear() {
        size = 0;
    }

    int size() {
        return size;
    }

    long get(int index) {
        return values[index];
    }

    void set(int index, long value) {
        values[index] = value;
    }

    /**
     * Returns the 99th percentile by nearest rank: the smallest value at least 99 % of the values are not above;
     * 0 for an empty list. Sorts the list.
     */
    long p99() {
        if (size == 0) {
            return 0;
        }
        Arrays.sort(values, 0, size);
        int rank = (int) Math.ceil(size * 0.99);
        return values[Math.max(0, rank - 1)];
    }
}
