package dev.vantage.trace.engine;

import java.util.Arrays;

/** Lengths of unions of intervals kept as pairs {@code [from, to)} in {@link LongList}s. */
final class Intervals {

    private Intervals() {
    }

    /** Returns the length of the union of the intervals of all lists. */
    static long union(LongList... lists) {
        int n = 0;
        for (LongList l : lists) {
            n += l.size() / 2;
        }
        if (n == 0) {
            return 0;
        }
        long[][] all = new long[n][];
        int k = 0;
        for (LongList l : lists) {
            for (int i = 0; i + 1 < l.size(); i += 2) {
                all[k++] = new long[] {l.get(i), l.get(i + 1)};
            }
        }
        Arrays.sort(all, (a, b) -> Long.compare(a[0], b[0]));
        long total = 0;
        long from = all[0][0];
        long to = all[0][1];
        for (int i = 1; i < n; i++) {
            if (all[i][0] > to) {
                total += to - from;
                from = all[i][0];
                to = all[i][1];
            } else {
                to = Math.max(to, all[i][1]);
            }
        }
        return total + (to - from);
    }

    /** Returns the length of the union of the intervals {@code [from[i], to[i])}, i below n. Sorts copies. */
    static long unionLength(long[] from, long[] to, int n) {
        if (n == 0) {
            return 0;
        }
        // sort by start: pack each interval's index beside its start, sort the starts, carry the ends
        long[] f = Arrays.copyOf(from, n);
        Integer[] idx = null;
        boolean sorted = true;
        for (int i = 1; i < n && sorted; i++) {
            sorted = from[i] >= from[i - 1];
        }
        long[] t;
        if (sorted) {
            t = Arrays.copyOf(to, n);
        } else {
            int[] order = new int[n];
            for (int i = 0; i < n; i++) {
                order[i] = i;
            }
            sortByKey(order, from);
            t = new long[n];
            for (int i = 0; i < n; i++) {
                f[i] = from[order[i]];
                t[i] = to[order[i]];
            }
        }
        long total = 0;
        long a = f[0];
        long b = t[0];
        for (int i = 1; i < n; i++) {
            if (f[i] > b) {
                total += b - a;
                a = f[i];
                b = t[i];
            } else {
                b = Math.max(b, t[i]);
            }
        }
        return total + (b - a);
    }

    /** Sorts positions by their key, a merge sort of ints (no boxing). */
    static void sortByKey(int[] order, long[] key) {
        int[] tmp = new int[order.length];
        for (int width = 1; width < order.length; width *= 2) {
            for (int lo = 0; lo < order.length - width; lo += 2 * width) {
                int mid = lo + width;
                int hi = Math.min(lo + 2 * width, order.length);
                int i = lo;
                int j = mid;
                int k = lo;
                while (i < mid && j < hi) {
                    tmp[k++] = key[order[j]] < key[order[i]] ? order[j++] : order[i++];
                }
                while (i < mid) {
                    tmp[k++] = order[i++];
                }
                while (j < hi) {
                    tmp[k++] = order[j++];
                }
                System.arraycopy(tmp, lo, order, lo, hi - lo);
            }
        }
    }
}
