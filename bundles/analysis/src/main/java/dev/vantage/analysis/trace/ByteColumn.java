package dev.vantage.analysis.trace;

import java.nio.ByteBuffer;
import java.util.Arrays;

/** A growable column of bytes, stored as {@link LongColumn} stores longs. Not thread-safe. */
final class ByteColumn {

    private final ColumnStore store;
    private byte[] head = new byte[16];
    private ByteBuffer[] chunks = new ByteBuffer[0];
    private byte[][] heapChunks = new byte[0][];
    private int size;

    ByteColumn(ColumnStore store) {
        this.store = store;
    }

    int size() {
        return size;
    }

    void add(byte v) {
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
                chunks[chunks.length - 1] = store.map(ColumnStore.CHUNK);
            } else {
                heapChunks = Arrays.copyOf(heapChunks, heapChunks.length + 1);
                heapChunks[heapChunks.length - 1] = new byte[ColumnStore.CHUNK];
            }
        }
        int j = k & ColumnStore.CHUNK_MASK;
        if (store != null) {
            chunks[chunk].put(j, v);
        } else {
            heapChunks[chunk][j] = v;
        }
        size++;
    }

    byte get(int i) {
        if (i < ColumnStore.HEAD) {
            return head[i];
        }
        int k = i - ColumnStore.HEAD;
        return store != null ? chunks[k >>> ColumnStore.CHUNK_SHIFT].get(k & ColumnStore.CHUNK_MASK)
                : heapChunks[k >>> ColumnStore.CHUNK_SHIFT][k & ColumnStore.CHUNK_MASK];
    }
}
