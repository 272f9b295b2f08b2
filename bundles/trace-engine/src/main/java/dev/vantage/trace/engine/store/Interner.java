package dev.vantage.trace.engine.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Interns strings to small ids straight from a parser's character buffer, so that reading a name that was seen
 * before creates no {@link String}. Open addressing over the characters' hash. Not thread-safe.
 */
public final class Interner {

    private final List<String> values = new ArrayList<>();
    private int[] table = new int[256];
    private int[] hashes = new int[256];

    public Interner() {
        Arrays.fill(table, -1);
    }

    /** Returns the id of the characters {@code chars[offset, offset + length)}, adding them when new. */
    public int intern(char[] chars, int offset, int length) {
        int h = 0;
        for (int i = 0; i < length; i++) {
            h = 31 * h + chars[offset + i];
        }
        int mask = table.length - 1;
        for (int slot = mix(h) & mask; ; slot = (slot + 1) & mask) {
            int id = table[slot];
            if (id < 0) {
                return add(new String(chars, offset, length), h, slot);
            }
            if (hashes[slot] == h && equal(values.get(id), chars, offset, length)) {
                return id;
            }
        }
    }

    /** Returns the id of a builder's characters, adding them when new. */
    public int intern(StringBuilder b) {
        int length = b.length();
        if (scratch.length < length) {
            scratch = new char[Math.max(length, scratch.length * 2)];
        }
        b.getChars(0, length, scratch, 0);
        return intern(scratch, 0, length);
    }

    private char[] scratch = new char[64];

    /**
     * Returns the id of a string, adding it when new. The hash is the string's own ({@link String#hashCode} is the
     * same sum over the characters as the buffer's), so a string already seen is found without a copy.
     */
    public int intern(String s) {
        int h = s.hashCode();
        int mask = table.length - 1;
        for (int slot = mix(h) & mask; ; slot = (slot + 1) & mask) {
            int id = table[slot];
            if (id < 0) {
                return add(s, h, slot);
            }
            if (hashes[slot] == h && values.get(id).equals(s)) {
                return id;
            }
        }
    }

    /** Returns the string of an id. */
    public String get(int id) {
        return values.get(id);
    }

    public int size() {
        return values.size();
    }

    public List<String> values() {
        return values;
    }

    private int add(String s, int h, int slot) {
        int id = values.size();
        values.add(s);
        table[slot] = id;
        hashes[slot] = h;
        if (values.size() * 2 > table.length) {
            grow();
        }
        return id;
    }

    private void grow() {
        int[] oldTable = table;
        int[] oldHashes = hashes;
        table = new int[oldTable.length * 2];
        hashes = new int[oldTable.length * 2];
        Arrays.fill(table, -1);
        int mask = table.length - 1;
        for (int i = 0; i < oldTable.length; i++) {
            if (oldTable[i] >= 0) {
                int slot = mix(oldHashes[i]) & mask;
                while (table[slot] >= 0) {
                    slot = (slot + 1) & mask;
                }
                table[slot] = oldTable[i];
                hashes[slot] = oldHashes[i];
            }
        }
    }

    private static int mix(int h) {
        return h ^ (h >>> 16) ^ (h >>> 7);
    }

    private static boolean equal(String s, char[] chars, int offset, int length) {
        if (s.length() != length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (s.charAt(i) != chars[offset + i]) {
                return false;
            }
        }
        return true;
    }
}
