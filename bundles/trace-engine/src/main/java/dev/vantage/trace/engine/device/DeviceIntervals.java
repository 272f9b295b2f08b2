package dev.vantage.trace.engine.device;

import java.util.Arrays;

/**
 * Intervals of device work {@code [start, end)} in nanoseconds, merged as HTA merges kernels: sorted by start, an
 * interval that starts at or before the furthest end so far joins the group (touching intervals merge).
 */
final class DeviceIntervals {

    private long[] start = new long[64];
    private long[] end = new long[64];
    private int size;

    void add(long from, long to) {
        if (size == start.length) {
            start = Arrays.copyOf(start, size * 2);
            end = Arrays.copyOf(end, size * 2);
        }
        start[size] = from;
        end[size] = to;
        size++;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /**
     * Returns the merged intervals as pairs {@code [from0, to0, from1, to1, ...]}, in time order, disjoint and not
     * touching.
     */
    long[] merged() {
        if (size == 0) {
            return new long[0];
        }
        Integer[] order = new Integer[size];
        for (int i = 0; i < size; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Long.compare(start[a], start[b]));
        long[] out = new long[2 * size];
        int n = 0;
        long from = start[order[0]];
        long to = end[order[0]];
        for (int k = 1; k < size; k++) {
            int i = order[k];
            if (start[i] > to) {
                out[n++] = from;
                out[n++] = to;
                from = start[i];
                to = end[i];
            } else {
                to = Math.max(to, end[i]);
            }
        }
        out[n++] = from;
        out[n++] = to;
        return Arrays.copyOf(out, n);
    }

    /** Returns the summed length of merged pairs. */
    static long length(long[] merged) {
        long total = 0;
        for (int i = 0; i < merged.length; i += 2) {
            total += merged[i + 1] - merged[i];
        }
        return total;
    }
}
