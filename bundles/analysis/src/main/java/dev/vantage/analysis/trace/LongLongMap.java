package dev.vantage.analysis.trace;

import java.util.Arrays;

/**
 * An open-addressing hash map from long keys to long values (linear probing, power-of-two table, half full at
 * most), so that joining millions of events by {@code External id} costs no object per entry. Not thread-safe.
 */
final class LongLongMap {

    private static final long EMPTY = Long.MIN_VALUE;

    private long[] keys = new long[64];
    private long[] values = new long[64];
    private int size;

    LongLongMap() {
        Arrays.fill(keys, EMPTY);
    }

    /** Returns the value of a key, or {@code absent}. */
    long get(long key, long absent) {
        if (key == EMPTY) {
            return absent;
        }
        int mask = keys.length - 1;
        for (int i = slot(key, mask); ; i = (i + 1) & mask) {
            if (keys[i] == key) {
                return values[i];
            }
            if (keys[i] == EMPTY) {
                return absent;
            }
        }
    }

    /** Sets the value of a key. {@link Long#MIN_VALUE} is not a key: it is ignored. */
    void put(long key, long value) {
        if (key == EMPTY) {
            return;
        }
        int i = find(key); // may grow the table: index after it
        values[i] = value;
    }

    /** Adds to the value of a key, which starts at 0. */
    void add(long key, long delta) {
        if (key == EMPTY) {
            return;
        }
        int i = find(key);
        values[i] += delta;
    }

    private int find(long key) {
        if (size * 2 >= keys.length) {
            grow();
        }
        int mask = keys.length - 1;
        int i = slot(key, mask);
        while (keys[i] != EMPTY && keys[i] != key) {
            i = (i + 1) & mask;
        }
        if (keys[i] == EMPTY) {
            keys[i] = key;
            values[i] = 0;
            size++;
        }
        return i;
    }

    private void grow() {
        long[] oldKeys = keys;
        long[] oldValues = values;
        keys = new long[oldKeys.length * 2];
        values = new long[oldKeys.length * 2];
        Arrays.fill(keys, EMPTY);
        int mask = keys.length - 1;
        for (int j = 0; j < oldKeys.length; j++) {
            if (oldKeys[j] != EMPTY) {
                int i = slot(oldKeys[j], mask);
                while (keys[i] != EMPTY) {
                    i = (i + 1) & mask;
                }
                keys[i] = oldKeys[j];
                values[i] = oldValues[j];
            }
        }
    }

    private static int slot(long key, int mask) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32)) & mask;
    }
}
