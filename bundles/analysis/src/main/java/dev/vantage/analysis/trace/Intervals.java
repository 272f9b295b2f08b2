package dev.vantage.analysis.trace;

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
}
