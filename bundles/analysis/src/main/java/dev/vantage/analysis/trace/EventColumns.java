package dev.vantage.analysis.trace;

import java.util.Arrays;

/**
 * Complete events of one host thread, or all device work, as growable primitive columns: about 40 bytes an event
 * and no object per event. Times are nanoseconds relative to the trace's base time. Not thread-safe.
 */
final class EventColumns {

    static final byte OP = 0;
    static final byte ANNOTATION = 1;
    static final byte RUNTIME = 2;
    static final byte OTHER_HOST = 3;
    static final byte KERNEL = 4;
    static final byte MEMCPY = 5;
    static final byte MEMSET = 6;
    static final byte COMMUNICATION = 7;

    long[] start = new long[64];
    long[] duration = new long[64];
    /** {@code External id}, or {@link Long#MIN_VALUE} when the event has none. */
    long[] externalId = new long[64];
    int[] name = new int[64];
    /** For host events the interned input shapes, for device work the device index. */
    int[] detail = new int[64];
    byte[] kind = new byte[64];
    int size;

    void add(long startNanos, long durationNanos, long external, int nameId, int detailId, byte kindId) {
        if (size == start.length) {
            int n = size * 2;
            start = Arrays.copyOf(start, n);
            duration = Arrays.copyOf(duration, n);
            externalId = Arrays.copyOf(externalId, n);
            name = Arrays.copyOf(name, n);
            detail = Arrays.copyOf(detail, n);
            kind = Arrays.copyOf(kind, n);
        }
        start[size] = startNanos;
        duration[size] = durationNanos;
        externalId[size] = external;
        name[size] = nameId;
        detail[size] = detailId;
        kind[size] = kindId;
        size++;
    }

    /**
     * Returns the events' positions in nesting order: by start, a longer event before a shorter one starting with
     * it, else as recorded. Traces Vantage writes are in that order already and cost no sort.
     */
    int[] nestingOrder() {
        int[] order = new int[size];
        boolean sorted = true;
        for (int i = 0; i < size; i++) {
            order[i] = i;
            if (i > 0 && (start[i] < start[i - 1] || start[i] == start[i - 1] && duration[i] > duration[i - 1])) {
                sorted = false;
            }
        }
        if (sorted) {
            return order;
        }
        Integer[] boxed = new Integer[size];
        for (int i = 0; i < size; i++) {
            boxed[i] = i;
        }
        Arrays.sort(boxed, (a, b) -> start[a] != start[b] ? Long.compare(start[a], start[b])
                : duration[a] != duration[b] ? Long.compare(duration[b], duration[a]) : Integer.compare(a, b));
        for (int i = 0; i < size; i++) {
            order[i] = boxed[i];
        }
        return order;
    }
}
