package dev.vantage.profiler.core.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import dev.vantage.profiler.dispatch.DispatchThread;
import dev.vantage.profiler.memory.MemoryCategory;
import dev.vantage.profiler.memory.MemorySink;
import dev.vantage.profiler.memory.MemoryThread;

/**
 * The memory sink of a profile that records memory, for the whole profile (its waiting and warm-up steps too): it
 * follows every live block's size and category, so that a recording window knows what was already allocated when
 * it began (torch's pre-existing memory, here with categories: parameters moved to the device before the first
 * recorded step stay parameters), and forwards events to the window's {@link Recorder} while one records.
 *
 * <p>Concurrency: allocators report from any thread (late frees from the tensor runtime's collector thread), so the blocks are
 * guarded by this object's lock, held for a table update only; the recorder is called outside it. Switching the
 * recorder and taking the snapshot of live blocks happen together under the lock, so every event is either in the
 * snapshot or forwarded to the recorder, never both or neither. The tables are primitive open-addressing tables:
 * an event allocates nothing once a table has grown to the number of live blocks.
 */
final class LiveBlocks implements MemorySink {

    /** One live block at a window's start. */
    record Block(String deviceType, int deviceIndex, long address, long bytes, MemoryCategory category) {
    }

    private final List<Table> tables = new ArrayList<>();
    private volatile Recorder recorder;

    /** Forwards events to a window's recorder from now on (null for none); returns the blocks live now. */
    synchronized List<Block> startWindow(Recorder r) {
        recorder = r;
        List<Block> live = new ArrayList<>();
        for (Table t : tables) {
            t.forEach(live);
        }
        return live;
    }

    /** Stops forwarding to a recorder. */
    synchronized void stopWindow() {
        recorder = null;
    }

    @Override
    public void allocated(String deviceType, int deviceIndex, long address, long bytes, long totalAllocated,
            long totalReserved) {
        DispatchThread thread = DispatchThread.current();
        Recorder r;
        synchronized (this) {
            Table t = table(deviceType, deviceIndex);
            if (bytes > 0) {
                t.put(address, bytes, MemoryThread.category(thread).ordinal());
            } else {
                t.remove(address);
            }
            r = recorder;
        }
        if (r != null) {
            r.allocated(deviceType, deviceIndex, address, bytes, totalAllocated, totalReserved);
        }
    }

    /** A block the collector frees: counted in the recording window with its size and category, if one records. */
    @Override
    public void collected(String deviceType, int deviceIndex, long address, String allocatedBy) {
        Recorder r;
        long bytes;
        int category;
        synchronized (this) {
            Table t = table(deviceType, deviceIndex);
            bytes = t.size(address);
            category = t.category(address);
            r = recorder;
        }
        if (r != null && bytes >= 0) {
            r.collected(deviceType, deviceIndex, bytes, MemoryCategory.ofIndex(category), allocatedBy);
        }
    }

    @Override
    public void outOfMemory(String deviceType, int deviceIndex, long bytes, long totalAllocated,
            long totalReserved) {
        Recorder r = recorder;
        if (r != null) {
            r.outOfMemory(deviceType, deviceIndex, bytes, totalAllocated, totalReserved);
        }
    }

    @Override
    public void categorized(String deviceType, int deviceIndex, long address, MemoryCategory category) {
        Recorder r;
        synchronized (this) {
            table(deviceType, deviceIndex).recategorize(address, category.ordinal());
            r = recorder;
        }
        if (r != null) {
            r.categorized(deviceType, deviceIndex, address, category);
        }
    }

    /** The device's table; devices are few, so a scan by identity of the interned type name is enough. */
    private Table table(String deviceType, int deviceIndex) {
        for (Table t : tables) {
            if (t.index == deviceIndex && t.type.equals(deviceType)) {
                return t;
            }
        }
        Table t = new Table(deviceType, deviceIndex);
        tables.add(t);
        return t;
    }

    /** Live blocks of one device: address to size and category, linear probing, backward-shift deletion. */
    private static final class Table {
        private static final long EMPTY = Long.MIN_VALUE;

        final String type;
        final int index;
        private long[] keys = new long[64];
        private long[] sizes = new long[64];
        private byte[] categories = new byte[64];
        private int count;

        Table(String type, int index) {
            this.type = type;
            this.index = index;
            Arrays.fill(keys, EMPTY);
        }

        private int slot(long address) {
            int mask = keys.length - 1;
            int i = Long.hashCode(address * 0x9E3779B97F4A7C15L) & mask;
            while (keys[i] != EMPTY && keys[i] != address) {
                i = (i + 1) & mask;
            }
            return i;
        }

        void put(long address, long bytes, int category) {
            if (address == EMPTY) {
                return;
            }
            if (2 * (count + 1) > keys.length) {
                grow();
            }
            int i = slot(address);
            if (keys[i] == EMPTY) {
                keys[i] = address;
                count++;
            }
            sizes[i] = bytes;
            categories[i] = (byte) category;
        }

        /** Returns a live block's size, or -1 when no block lives at the address. */
        long size(long address) {
            int i = slot(address);
            return keys[i] == address ? sizes[i] : -1;
        }

        /** Returns a live block's category index, or that of {@code UNKNOWN} when no block lives there. */
        int category(long address) {
            int i = slot(address);
            return keys[i] == address ? categories[i] : MemoryCategory.UNKNOWN.ordinal();
        }

        void recategorize(long address, int category) {
            int i = slot(address);
            if (keys[i] == address) {
                categories[i] = (byte) category;
            }
        }

        void remove(long address) {
            int i = slot(address);
            if (keys[i] != address) {
                return;
            }
            int mask = keys.length - 1;
            keys[i] = EMPTY;
            count--;
            // shift back the entries of the probe run that follows, so that lookups never stop at the hole
            for (int j = (i + 1) & mask; keys[j] != EMPTY; j = (j + 1) & mask) {
                long k = keys[j];
                int home = Long.hashCode(k * 0x9E3779B97F4A7C15L) & mask;
                boolean between = i <= j ? i < home && home <= j : i < home || home <= j;
                if (!between) {
                    keys[i] = k;
                    sizes[i] = sizes[j];
                    categories[i] = categories[j];
                    keys[j] = EMPTY;
                    i = j;
                }
            }
        }

        private void grow() {
            long[] oldKeys = keys;
            long[] oldSizes = sizes;
            byte[] oldCategories = categories;
            keys = new long[oldKeys.length * 2];
            sizes = new long[keys.length];
            categories = new byte[keys.length];
            Arrays.fill(keys, EMPTY);
            count = 0;
            for (int i = 0; i < oldKeys.length; i++) {
                if (oldKeys[i] != EMPTY) {
                    put(oldKeys[i], oldSizes[i], oldCategories[i]);
                }
            }
        }

        void forEach(List<Block> out) {
            for (int i = 0; i < keys.length; i++) {
                if (keys[i] != EMPTY) {
                    out.add(new Block(type, index, keys[i], sizes[i], MemoryCategory.ofIndex(categories[i])));
                }
            }
        }
    }
}
