package dev.vantage.trace.engine;

/** Lengths of unions of intervals kept as pairs {@code [from, to)} in {@link LongList}s. */
final class Intervals {

    private Intervals() {
    }

    /**
     * Returns the lengths of the unions of the first lists: element {@code k} is the length of the union of the
     * intervals of {@code lists[0]} to {@code lists[k]}. The intervals are sorted once, by start, and swept once a
     * list, so a step's six nested unions cost one sort.
     */
    static long[] cumulativeUnions(LongList... lists) {
        int n = 0;
        for (LongList l : lists) {
            n += l.size() / 2;
        }
        long[] out = new long[lists.length];
        if (n == 0) {
            return out;
        }
        long[] from = new long[n];
        long[] to = new long[n];
        byte[] list = new byte[n];
        int k = 0;
        for (int j = 0; j < lists.length; j++) {
            LongList l = lists[j];
            for (int i = 0; i + 1 < l.size(); i += 2, k++) {
                from[k] = l.get(i);
                to[k] = l.get(i + 1);
                list[k] = (byte) j;
            }
        }
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        sortByKey(order, from);
        for (int j = 0; j < lists.length; j++) {
            long total = 0;
            long a = 0;
            long b = 0;
            boolean open = false;
            for (int i : order) {
                if (list[i] > j) {
                    continue;
                }
                if (!open) {
                    a = from[i];
                    b = to[i];
                    open = true;
                } else if (from[i] > b) {
                    total += b - a;
                    a = from[i];
                    b = to[i];
                } else {
                    b = Math.max(b, to[i]);
                }
            }
            out[j] = open ? total + (b - a) : 0;
        }
        return out;
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
