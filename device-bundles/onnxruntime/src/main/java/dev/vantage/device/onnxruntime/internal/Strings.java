package dev.vantage.device.onnxruntime.internal;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Interns byte spans of a profile file to small ints, so that the names, op types, providers and shapes ONNX
 * Runtime repeats for every run become a String once each: an open-addressing table of (hash, id), the bytes kept in
 * one growing pool. Not thread-safe: one per reader.
 */
final class Strings {

    private int[] table = new int[1024];
    private int[] hashes = new int[1024];
    private int[] starts = new int[256];
    private int[] lengths = new int[256];
    private String[] decoded = new String[256];
    private byte[] pool = new byte[16 * 1024];
    private int poolSize;
    private int size;

    Strings() {
        Arrays.fill(table, -1);
    }

    /** Returns how many distinct spans were interned. */
    int size() {
        return size;
    }

    /**
     * Returns the id of the bytes {@code buf[from, to)}, a JSON string's raw content (escapes not yet decoded),
     * interning it at its first sight.
     */
    int intern(byte[] buf, int from, int to) {
        int h = hash(buf, from, to);
        int mask = table.length - 1;
        for (int slot = h & mask;; slot = (slot + 1) & mask) {
            int id = table[slot];
            if (id < 0) {
                return add(slot, h, buf, from, to);
            }
            if (hashes[slot] == h && lengths[id] == to - from
                    && Arrays.equals(pool, starts[id], starts[id] + lengths[id], buf, from, to)) {
                return id;
            }
        }
    }

    /**
     * A hash of a span from its length and its first, middle and last eight bytes (every byte of a span up to 24
     * long): constant time, where ONNX Runtime's node names run to a hundred bytes and repeat run after run. Spans
     * that share those bytes and differ between them cost a comparison each, nothing worse.
     */
    private static int hash(byte[] b, int from, int to) {
        int len = to - from;
        long h = len;
        if (len >= 8) {
            h = h * 31 + (long) Json.LONGS.get(b, from);
            h = h * 31 + (long) Json.LONGS.get(b, from + len / 2 - 4);
            h = h * 31 + (long) Json.LONGS.get(b, to - 8);
        } else {
            for (int i = from; i < to; i++) {
                h = h * 31 + b[i];
            }
        }
        h *= 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 32));
    }

    /** Returns the id here of another table's id, interning its bytes. */
    int intern(Strings other, int id) {
        return intern(other.pool, other.starts[id], other.starts[id] + other.lengths[id]);
    }

    private int add(int slot, int h, byte[] buf, int from, int to) {
        int len = to - from;
        if (poolSize + len > pool.length) {
            pool = Arrays.copyOf(pool, Math.max(pool.length * 2, poolSize + len));
        }
        System.arraycopy(buf, from, pool, poolSize, len);
        if (size == starts.length) {
            starts = Arrays.copyOf(starts, size * 2);
            lengths = Arrays.copyOf(lengths, size * 2);
            decoded = Arrays.copyOf(decoded, size * 2);
        }
        int id = size++;
        starts[id] = poolSize;
        lengths[id] = len;
        poolSize += len;
        table[slot] = id;
        hashes[slot] = h;
        if (size * 2 > table.length) {
            rehash();
        }
        return id;
    }

    private void rehash() {
        int[] oldTable = table;
        int[] oldHashes = hashes;
        table = new int[oldTable.length * 2];
        hashes = new int[oldTable.length * 2];
        Arrays.fill(table, -1);
        int mask = table.length - 1;
        for (int i = 0; i < oldTable.length; i++) {
            int id = oldTable[i];
            if (id >= 0) {
                int slot = oldHashes[i] & mask;
                while (table[slot] >= 0) {
                    slot = (slot + 1) & mask;
                }
                table[slot] = id;
                hashes[slot] = oldHashes[i];
            }
        }
    }

    /** Returns the raw bytes of an id as text, without decoding JSON escapes (for spans that are JSON values). */
    String raw(int id) {
        return new String(pool, starts[id], lengths[id], StandardCharsets.UTF_8);
    }

    /** Returns an id's JSON string content with its escapes decoded; made once per id. */
    String get(int id) {
        String s = decoded[id];
        if (s == null) {
            s = decoded[id] = Json.unescape(pool, starts[id], starts[id] + lengths[id]);
        }
        return s;
    }
}
