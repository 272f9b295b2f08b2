package dev.vantage.profiler.dispatch;

import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Interns op and annotation names to small ints, so that recorders store an int per event instead of a string.
 * A runtime interns each op name once, when it declares the op; ids are never reused. Thread-safe: lookups by id
 * read one volatile array, interning a new name takes a lock.
 */
public final class OpNames {

    private static final ConcurrentHashMap<String, Integer> IDS = new ConcurrentHashMap<>();
    private static volatile String[] names = new String[256];
    private static int size;

    private OpNames() {
    }

    /**
     * Returns the id of a name, assigning the next free id the first time the name is seen.
     *
     * @param name not null
     * @return an id, 0 or greater
     */
    public static int intern(String name) {
        Integer id = IDS.get(Objects.requireNonNull(name, "name"));
        return id != null ? id : add(name);
    }

    private static synchronized int add(String name) {
        Integer existing = IDS.get(name);
        if (existing != null) {
            return existing;
        }
        String[] current = names;
        if (size == current.length) {
            current = Arrays.copyOf(current, size * 2);
        }
        current[size] = name;
        names = current;   // publishes the array (and the new slot) before the id escapes through IDS
        IDS.put(name, size);
        return size++;
    }

    /**
     * Returns the name of an id.
     *
     * @throws IllegalArgumentException if the id was never assigned
     */
    public static String name(int id) {
        String[] current = names;
        String name = id >= 0 && id < current.length ? current[id] : null;
        if (name == null) {
            throw new IllegalArgumentException("unknown name id " + id);
        }
        return name;
    }
}
