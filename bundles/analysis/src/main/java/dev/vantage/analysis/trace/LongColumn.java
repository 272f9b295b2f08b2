package dev.vantage.analysis.trace;

import java.nio.LongBuffer;
import java.util.Arrays;

/**
 * A growable column of longs: the first {@link ColumnStore#HEAD} on the heap, the rest in chunks the
 * {@link ColumnStore} maps (or on the heap too when there is no store). No object per value. Not thread-safe.
 */
final class LongColumn {

    private final ColumnStore store;
    private long[] head = new long[16];
    private LongBuffer[] chunks = new LongBuffer[0];
    private long[][] heapChunks = new long[0][];
    private int size;

    LongColumn(ColumnStore store) {
        this.store = store;
    }

    /** A column of {@code n} copies of a value. */
    static LongColumn filled(ColumnStore store, int n, long value) {
        LongColumn c = new LongColumn(store);
        for (int i = 0; i < n; i++) {
            c.add(value);
        }
        return c;
    }

    int size() {
        return size;
    }

    void add(long v) {
        if (size < ColumnStore.HEAD) {
            if (size == head.length) {
                head = Arrays.copyOf(head, Math.min(ColumnStore.HEAD, size * 2));
            }
            head[size++] = v;
            return;
        }
        int k = size - ColumnStore.HEAD;
        int chunk = k >>> ColumnStore.CHUNK_SHIFT;
        if ((k & ColumnStore.CHUNK_MASK) == 0 && chunk == chunkCount()) {
            grow();
        }
        size++;
        set(size - 1, v);
    }

    private int chunkCount() {
        return store != null ? chunks.length : heapChunks.length;
    }

    private void grow() {
        if (store != null) {
            chunks = Arrays.copyOf(chunks, chunks.length + 1);
            chunks[chunks.length - 1] = store.map((long) ColumnStore.CHUNK * Long.BYTES).asLongBuffer();
        } else {
            heapChunks = Arrays.copyOf(heapChunks, heapChunks.length + 1);
            heapChunks[heapChunks.length - 1] = new long[ColumnStore.CHUNK];
        }
    }

    long get(int i) {
        if (i < ColumnStore.HEAD) {
            return head[i];
        }
        int k = i - ColumnStore.HEAD;
        return store != null ? chunks[k >>> ColumnStore.CHUNK_SHIFT].get(k & ColumnStore.CHUNK_MASK)
                : heapChunks[k >>> ColumnStore.CHUNK_SHIFT][k & ColumnStore.CHUNK_MASK];
    }

    void set(int i, long v) {
        if (i < ColumnStore.HEAD) {
            head[i] = v;
            return;
        }
        int k = i - ColumnStore.HEAD;
        if (store != null) {
            chunks[k >>> ColumnStore.CHUNK_SHIFT].put(k & ColumnStore.CHUNK_MASK, v);
        } else {
            heapChunks[k >>> ColumnStore.CHUNK_SHIFT][k & ColumnStore.CHUNK_MASK] = v;
        }
    }

    /** Sorts the values ascending, in place (a heap sort: no extra memory). */
    void sort() {
        int n = size;
        if (n <= ColumnStore.HEAD) {
            Arrays.sort(head, 0, n);
            return;
        }
        for (int i = n / 2 - 1; i >= 0; i--) {
            siftDown(i, n);
        }
        for (int end = n - 1; end > 0; end--) {
            long t = get(0);
            set(0, get(end));
            set(end, t);
            siftDown(0, end);
        }
    }

    private void siftDown(int i, int n) {
        long v = get(i);
        while (true) {
            int child = 2 * i + 1;
            if (child >= n) {
                break;
            }
            long c = get(child);
            if (child + 1 < n) {
                long r = get(child + 1);
                if (r > c) {
                    child++;
                    c = r;
                }
            }
            if (c <= v) {
                break;
            }
            set(i, c);
            i = child;
        }
        set(i, v);
    }

    /**
     * Returns the 99th percentile by nearest rank: the smallest value at least 99 % of the values are not above;
     * 0 for an empty column. Sorts the column.
     */
    long p99() {
        if (size == 0) {
            return 0;
        }
        sort();
        int rank = (int) Math.ceil(size * 0.99);
        return get(Math.max(0, rank - 1));
    }
}
