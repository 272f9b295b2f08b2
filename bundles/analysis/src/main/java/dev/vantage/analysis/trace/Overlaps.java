package dev.vantage.analysis.trace;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The complete events that start inside another on their thread and end more than a microsecond after it
 * (pytorch#174555: torch writes such spans with {@code with_stack=True}), as {@link TraceAnalysis} finds them while it
 * nests a thread's events:
 * how many, and per thread the first in file order. Such an event is read as the sibling of the one it overlaps;
 * {@link #account} counts that repair with the byte offset of the first, which the columns do not keep: the file is
 * read again, and the reading stops at that event.
 */
final class Overlaps {

    private long count;
    /** Per thread, the smallest row (rows are in file order) of an overlapping event, or -1. */
    private final int[] firstRow;

    Overlaps(int threads) {
        firstRow = new int[threads];
        Arrays.fill(firstRow, -1);
    }

    void add(int thread, int row) {
        count++;
        if (firstRow[thread] < 0 || row < firstRow[thread]) {
            firstRow[thread] = row;
        }
    }

    long count() {
        return count;
    }

    /**
     * Counts the overlaps of a Chrome trace as repairs in the account, at the byte offset of the first (a strict
     * account refuses the file there); a {@code .pftrace}'s overlapping slices are on lanes of their thread, the
     * way Perfetto writes overlap, and are not damage.
     */
    static void account(Path file, TraceColumns parsed, Overlaps overlaps, TraceRepairs repairs) throws IOException {
        if (overlaps.count == 0 || parsed.format.equals("perfetto")) {
            return;
        }
        repairs.report(TraceRepairs.Kind.OVERLAP, TraceReader.offsetOfFirst(file, overlaps.firstRow, parsed.repairedPass),
                overlaps.count);
    }
}
