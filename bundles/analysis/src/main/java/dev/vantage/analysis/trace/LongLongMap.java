package dev.vantage.analysis.trace;

/**
 * An open-addressing hash map from long keys to long values (linear probing, power-of-two table, half full at
 * most), so that joining millions of events by {@code External id} costs no object per entry; the table lives in
 * {@link LongColumn}s, so a big one is in the {@link ColumnStore}'s mapped file, not on the heap. Not thread-safe.
 */
final class LongLongMap {

    private static final long EMPTY = Long.MIN_VALUE;

    private final ColumnStore store;
    private LongColumn keys;
    private LongColumn values;
    private int capacity = 64;
    private int size;

    LongLongMap(ColumnStore store) {
        this.store = store;
        keys = LongColumn.filled(store, capacity, EMPTY);
        values = LongColumn.filled(store, capacity, 0);
    }

    /** A map on the heap only. */
    LongLongMap() {
        this(null);
    }

    int size() {
        return size;
    }

    /** Returns the value of a key, or {@code absent}. */
    long get(long key, long absent) {
        if (key == EMPTY) {
            return absent;
        }
        int mask = capacity - 1;
        for (int i = slot(key, mask); ; i = (i + 1) & mask) {
            long k = keys.get(i);
            if (k == key) {
                return values.get(i);
            }
            if (k == EMPTY) {
                return absent;
            }
        }
    }

    /** Sets the value of a key. {@link Long#MIN_VALUE} is not a key: it is ignored. */
    void put(long key, long value) {
        if (key == EMPTY) {
            return;
        }
        int i = find(key);
        values.set(i, value);
    }

    /** Adds to the value of a key, which starts at 0. */
    void add(long key, long delta) {
        if (key == EMPTY) {
            return;
        }
        int i = find(key);
        values.set(i, values.get(i) + delta);
    }

    private int find(long key) {
        if (size * 2 >= capacity) {
            grow();
        }
        int mask = capacity - 1;
        int i = slot(key, mask);
        long k;
        while ((k = keys.get(i)) != EMPTY && k != key) {
            i = (i + 1) & mask;
        }
        if (k == EMPTY) {
            keys.set(i, key);
            values.set(i, 0);
            size++;
        }
        return i;
    }

    private void grow() {
        LongColumn oldKeys = keys;
        LongColumn oldValues = values;
        int oldCapacity = capacity;
        capacity *= 2;
        keys = LongColumn.filled(store, capacity, EMPTY);
        values = LongColumn.filled(store, capacity, 0);
        int mask = capacity - 1;
        for (int j = 0; j < oldCapacity; j++) {
            long k = oldKeys.get(j);
            if (k != EMPTY) {
                int i = slot(k, mask);
                while (keys.get(i) != EMPTY) {
                    i = (i + 1) & mask;
                }
                keys.set(i, k);
                values.set(i, oldValues.get(j));
            }
        }
    }

    private static int slot(long key, int mask) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32)) & mask;
    }
}
