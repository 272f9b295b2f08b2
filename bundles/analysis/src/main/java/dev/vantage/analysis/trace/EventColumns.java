package dev.vantage.analysis.trace;

/**
 * Complete events of one host thread, or all device work, as growable primitive columns: about 60 bytes an event,
 * no object per event, and beyond the first few thousand events in the memory-mapped chunks of a
 * {@link ColumnStore}, so the heap stays the same size whatever the trace's. Times are nanoseconds relative to the
 * trace's base time. Not thread-safe.
 */
final class EventColumns {

    /** A host operator ({@code cpu_op}, {@code Operator}, the legacy format's functions). */
    static final byte OP = 0;
    /** A user annotation ({@code record_function}). */
    static final byte ANNOTATION = 1;
    /** A device runtime call ({@code cudaLaunchKernel}, {@code hipLaunchKernel}, ...): launches device work. */
    static final byte RUNTIME = 2;
    /** Any other host event: GC pauses, Python functions, categories the reader does not know. */
    static final byte OTHER_HOST = 3;
    static final byte KERNEL = 4;
    static final byte MEMCPY = 5;
    static final byte MEMSET = 6;
    static final byte COMMUNICATION = 7;
    /** A device driver call ({@code cuLaunchKernel}): launches device work like a runtime call, but nothing counts it. */
    static final byte DRIVER = 8;
    /** A step's span ({@code ProfilerStep#N}): a host annotation that the step breakdown does not count as work. */
    static final byte STEP = 9;

    /** Returns true for the kinds of device work. */
    static boolean isDevice(byte kind) {
        return kind >= KERNEL && kind <= COMMUNICATION;
    }

    private final ColumnStore store;
    final LongColumn start;
    final LongColumn duration;
    /** {@code External id}, or {@link Long#MIN_VALUE} when the event has none. */
    final LongColumn externalId;
    /** The device runtime's {@code correlation} (the legacy format's flow id for its device work), or MIN_VALUE. */
    final LongColumn correlation;
    /** For host events the autograd {@code Sequence number}, for device work the stream; -1 when none. */
    final LongColumn sequence;
    final IntColumn name;
    /** For host events the interned input shapes, for device work the device index. */
    final IntColumn detail;
    /** The interned category as the trace wrote it. */
    final IntColumn category;
    final ByteColumn kind;
    int size;

    EventColumns(ColumnStore store) {
        this.store = store;
        start = new LongColumn(store);
        duration = new LongColumn(store);
        externalId = new LongColumn(store);
        correlation = new LongColumn(store);
        sequence = new LongColumn(store);
        name = new IntColumn(store);
        detail = new IntColumn(store);
        category = new IntColumn(store);
        kind = new ByteColumn(store);
    }

    int add(long startNanos, long durationNanos, long external, long corr, long seq, int nameId, int detailId,
            int categoryId, byte kindId) {
        start.add(startNanos);
        duration.add(durationNanos);
        externalId.add(external);
        correlation.add(corr);
        sequence.add(seq);
        name.add(nameId);
        detail.add(detailId);
        category.add(categoryId);
        kind.add(kindId);
        return size++;
    }

    long end(int i) {
        return start.get(i) + duration.get(i);
    }

    /**
     * Returns the events' positions in nesting order: by start, a longer event before a shorter one starting with
     * it, else as recorded. Traces in that order already cost no sort; others a merge sort of positions.
     */
    IntColumn nestingOrder() {
        IntColumn order = new IntColumn(store);
        boolean sorted = true;
        for (int i = 0; i < size; i++) {
            order.add(i);
            if (i > 0 && before(i, i - 1)) {
                sorted = false;
            }
        }
        if (!sorted) {
            IntColumn tmp = new IntColumn(store);
            for (int i = 0; i < size; i++) {
                tmp.add(0);
            }
            mergeSort(order, tmp);
        }
        return order;
    }

    /** Whether the event at {@code a} comes strictly before the one at {@code b} in nesting order. */
    private boolean before(int a, int b) {
        long sa = start.get(a);
        long sb = start.get(b);
        return sa != sb ? sa < sb : duration.get(a) > duration.get(b);
    }

    /** Bottom-up merge sort of positions, stable; runs of 16 are sorted by insertion first. */
    private void mergeSort(IntColumn a, IntColumn tmp) {
        int n = a.size();
        for (int lo = 0; lo < n; lo += 16) {
            int hi = Math.min(lo + 16, n);
            for (int i = lo + 1; i < hi; i++) {
                int v = a.get(i);
                int j = i - 1;
                while (j >= lo && before(v, a.get(j))) {
                    a.set(j + 1, a.get(j));
                    j--;
                }
                a.set(j + 1, v);
            }
        }
        IntColumn from = a;
        IntColumn to = tmp;
        for (int width = 16; width < n; width *= 2) {
            for (int lo = 0; lo < n; lo += 2 * width) {
                int mid = Math.min(lo + width, n);
                int hi = Math.min(lo + 2 * width, n);
                int i = lo;
                int j = mid;
                for (int k = lo; k < hi; k++) {
                    if (j >= hi || i < mid && !before(from.get(j), from.get(i))) {
                        to.set(k, from.get(i++));
                    } else {
                        to.set(k, from.get(j++));
                    }
                }
            }
            IntColumn swap = from;
            from = to;
            to = swap;
        }
        if (from != a) {
            for (int k = 0; k < n; k++) {
                a.set(k, from.get(k));
            }
        }
    }
}
