package dev.vantage.analysis.trace;

import java.util.Arrays;

/** A growable list of ints, without a boxed object per value. Not thread-safe. */
final class IntList {

    private int[] values = new int[16];
    private int size;

    void add(int value) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = value;
    }

    int size() {
        return size;
    }

    int get(int index) {
        return values[index];
    }
}
