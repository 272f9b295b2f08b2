package dev.vantage.analysis.trace;

import java.util.Arrays;

/**
 * Complete events of one host thread, or all device work, as growable primitive columns: about 60 bytes an event
 * and no object per event. Times are nanoseconds relative to the trace's base time. Not thread-safe.
 */
final class EventColumns {

    /** A host operator ({@code cpu_op}, {@code Operator}, the legacy format's functions). */
    static final byte OP = 0;
    /** A user annotation ({@code record_function}, {@code ProfilerStep#N}). */
    static final byte ANNOTATION = 1;
    /** A device runtime call ({@code cudaLaunchKernel}, {@code hipLaunchKernel}, ...): launches device work. */
    static final byte RUNTIME = 2;
    /** Any other host event: GC pauses, Python functions, categories the reader does not know. */
    static final byte OTHER_HOST = 3;
    /** A device driver call ({@code cuLaunchKernel}): launches device work like a runtime call, but nothing counts it. */
    static final byte DRIVER = 8;
    /** A step's span ({@code ProfilerStep#N}): a host annotation that the step breakdown does not count as work. */
    static final byte STEP = 9;
    static final byte KERNEL = 4;
    static final byte MEMCPY = 5;
    static final byte MEMSET = 6;
    static final byte COMMUNICATION = 7;

    /** Returns true for the kinds of device work. */
    static boolean isDevice(byte kind) {
        return kind >= KERNEL && kind <= COMMUNICATION;
    }

    long[] start = new long[64];
    long[] duration = new long[64];
    /** {@code External id}, or {@link Long#MIN_VALUE} when the event has none. */
    long[] externalId = new long[64];
    /** The device runtime's {@code correlation} (the legacy format's flow id for its device work), or MIN_VALUE. */
    long[] correlation = new long[64];
    /** For host events the autograd {@code Sequence number}, for device work the stream; -1 when none. */
    long[] sequence = new long[64];
    int[] name = new int[64];
    /** For host events the interned input shapes, for device work the device index. */
    int[] detail = new int[64];
    /** The interned category as the trace wrote it. */
    int[] category = new int[64];
    byte[] kind = new byte[64];
    int size;

    int add(long startNanos, long durationNanos, long external, long corr, long seq, int nameId, int detailId,
            int categoryId, byte kindId) {
        if (size == start.length) {
            int n = size * 2;
            start = Arrays.copyOf(start, n);
            duration = Arrays.copyOf(duration, n);
            externalId = Arrays.copyOf(externalId, n);
            correlation = Arrays.copyOf(correlation, n);
            sequence = Arrays.copyOf(sequence, n);
            name = Arrays.copyOf(name, n);
            detail = Arrays.copyOf(detail, n);
            category = Arrays.copyOf(category, n);
            kind = Arrays.copyOf(kind, n);
        }
        start[size] = startNanos;
        duration[size] = durationNanos;
        externalId[size] = external;
        correlation[size] = corr;
        sequence[size] = seq;
        name[size] = nameId;
        detail[size] = detailId;
        category[size] = categoryId;
        kind[size] = kindId;
        return size++;
    }

    /**
     * Returns the events' positions in nesting order: by start, a longer event before a shorter one starting with
     * it, else as recorded. Traces in that order already cost no sort; others a merge sort of positions.
     */
    int[] nestingOrder() {
        int[] order = new int[size];
        boolean sorted = true;
        for (int i = 0; i < size; i++) {
            order[i] = i;
            if (i > 0 && before(i, i - 1)) {
                sorted = false;
            }
        }
        if (!sorted) {
            int[] tmp = new int[size];
            mergeSort(order, tmp, 0, size);
        }
        return order;
    }

    /** Whether the event at {@code a} comes strictly before the one at {@code b} in nesting order. */
    private boolean before(int a, int b) {
        return start[a] != start[b] ? start[a] < start[b] : duration[a] > duration[b];
    }

    private void mergeSort(int[] a, int[] tmp, int from, int to) {
        if (to - from < 24) {
            for (int i = from + 1; i < to; i++) {
                int v = a[i];
                int j = i - 1;
                while (j >= from && before(v, a[j])) {
                    a[j + 1] = a[j];
                    j--;
                }
                a[j + 1] = v;
            }
            return;
        }
        int mid = (from + to) >>> 1;
        mergeSort(a, tmp, from, mid);
        mergeSort(a, tmp, mid, to);
        if (!before(a[mid], a[mid - 1])) {
            return;
        }
        System.arraycopy(a, from, tmp, from, to - from);
        int i = from;
        int j = mid;
        for (int k = from; k < to; k++) {
            if (j >= to || i < mid && !before(tmp[j], tmp[i])) {
                a[k] = tmp[i++];
            } else {
                a[k] = tmp[j++];
            }
        }
    }
}
