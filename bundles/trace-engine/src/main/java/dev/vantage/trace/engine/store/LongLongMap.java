package dev.vantage.trace.engine.store;

/**
 * An open-addressing hash map from long keys to long values (linear probing, power-of-two table, half full at
 * most), so that joining millions of events by {@code External id} costs no object per entry; the table lives in
 * {@link Column}s, so a big one is where its {@link BlockSource} puts it (a mapped file, for a reader). Not
 * thread-safe.
 */
public final class LongLongMap {

    private static final long EMPTY = Long.MIN_VALUE;

    private final BlockSource store;
    private Column keys;
    private Column values;
    private int capacity = 64;
    private int size;

    public LongLongMap(BlockSource store) {
        this.store = store;
        keys = Column.longs(store, capacity, EMPTY);
        values = Column.longs(store, capacity, 0);
    }

    /** A map on the heap only. */
    public LongLongMap() {
        this(BlockSource.HEAP);
    }

    public int size() {
        return size;
    }

    /** Returns the value of a key, or {@code absent}. */
    public long get(long key, long absent) {
        if (key == EMPTY) {
            return absent;
        }
        int mask = capacity - 1;
        for (int i = slot(key, mask); ; i = (i + 1) & mask) {
            long k = keys.getLong(i);
            if (k == key) {
                return values.getLong(i);
            }
            if (k == EMPTY) {
                return absent;
            }
        }
    }

    /** Sets the value of a key. {@link Long#MIN_VALUE} is not a key: it is ignored. */
    public void put(long key, long value) {
        if (key == EMPTY) {
            return;
        }
        int i = find(key);
        values.set(i, value);
    }

    /** Adds to the value of a key, which starts at 0. */
    public void add(long key, long delta) {
        if (key == EMPTY) {
            return;
        }
        int i = find(key);
        values.set(i, values.getLong(i) + delta);
    }

    private int find(long key) {
        if (size * 2 >= capacity) {
            grow();
        }
        int mask = capacity - 1;
        int i = slot(key, mask);
        long k;
        while ((k = keys.getLong(i)) != EMPTY && k != key) {
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
        Column oldKeys = keys;
        Column oldValues = values;
        int oldCapacity = capacity;
        capacity *= 2;
        keys = Column.longs(store, capacity, EMPTY);
        values = Column.longs(store, capacity, 0);
        int mask = capacity - 1;
        for (int j = 0; j < oldCapacity; j++) {
            long k = oldKeys.getLong(j);
            if (k != EMPTY) {
                int i = slot(k, mask);
                while (keys.getLong(i) != EMPTY) {
                    i = (i + 1) & mask;
                }
                keys.set(i, k);
                values.set(i, oldValues.getLong(j));
            }
        }
    }

    private static int slot(long key, int mask) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32)) & mask;
    }
}
