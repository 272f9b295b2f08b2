package dev.vantage.analysis.trace;

import java.nio.IntBuffer;
import java.util.Arrays;

/** A growable column of ints, stored as {@link LongColumn} stores longs. Not thread-safe. */
final class IntColumn {

    private final ColumnStore store;
    private int[] head = new int[16];
    private IntBuffer[] chunks = new IntBuffer[0];
    private int[][] heapChunks = new int[0][];
    private int size;

    IntColumn(ColumnStore store) {
        this.store = store;
    }

    int size() {
        return size;
    }

    void add(int v) {
        if (size < ColumnStore.HEAD) {
            if (size == head.length) {
                head = Arrays.copyOf(head, Math.min(ColumnStore.HEAD, size * 2));
            }
            head[size++] = v;
            return;
        }
        int k = size - ColumnStore.HEAD;
        int chunk = k >>> ColumnStore.CHUNK_SHIFT;
        if ((k & ColumnStore.CHUNK_MASK) == 0 && chunk == (store != null ? chunks.length : heapChunks.length)) {
            if (store != null) {
                chunks = Arrays.copyOf(chunks, chunks.length + 1);
                chunks[chunks.length - 1] = store.map((long) ColumnStore.CHUNK * Integer.BYTES).asIntBuffer();
            } else {
                heapChunks = Arrays.copyOf(heapChunks, heapChunks.length + 1);
                heapChunks[heapChunks.length - 1] = new int[ColumnStore.CHUNK];
            }
        }
        size++;
        set(size - 1, v);
    }

    int get(int i) {
        if (i < ColumnStore.HEAD) {
            return head[i];
        }
        int k = i - ColumnStore.HEAD;
        return store != null ? chunks[k >>> ColumnStore.CHUNK_SHIFT].get(k & ColumnStore.CHUNK_MASK)
                : heapChunks[k >>> ColumnStore.CHUNK_SHIFT][k & ColumnStore.CHUNK_MASK];
    }

    void set(int i, int v) {
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
}
