package dev.vantage.profiler.core.internal;

import java.util.Arrays;
import java.util.List;

/**
 * The events of a stopped profile and what post-processing derives from them: each event's parent and self time.
 *
 * <p>Built once, lazily, on the first read; linear in the number of events. Nesting comes from the depth each
 * event was recorded at, not from comparing timestamps, so it is exact even when clocks tie. Event ids are dense:
 * thread {@code t}'s event {@code i} has id {@code firstId[t] + i}, ids starting at 1.
 */
final class RecordedEvents {

    final List<ThreadBuffer.Snapshot> threads;
    final long stopNanos;
    /** Per thread: the id of its first event. */
    final long[] firstId;
    /** Per thread, per event: the index of the parent event on the same thread, or -1. */
    final int[][] parent;
    /** Per thread, per event: the duration less the durations of its direct children. */
    final long[][] selfNanos;
    final long eventCount;
    final long droppedEvents;

    RecordedEvents(List<ThreadBuffer.Snapshot> threads, long stopNanos) {
        this.threads = threads;
        this.stopNanos = stopNanos;
        int t = threads.size();
        this.firstId = new long[t];
        this.parent = new int[t][];
        this.selfNanos = new long[t][];
        long next = 1;
        long dropped = 0;
        for (int k = 0; k < t; k++) {
            ThreadBuffer.Snapshot s = threads.get(k);
            firstId[k] = next;
            next += s.size();
            dropped += s.dropped();
            link(k, s);
        }
        this.eventCount = next - 1;
        this.droppedEvents = dropped;
    }

    private void link(int k, ThreadBuffer.Snapshot s) {
        int n = s.size();
        int[] parents = new int[n];
        long[] self = new long[n];
        int[] openAtDepth = new int[16];
        for (int i = 0; i < n; i++) {
            int depth = s.depth(i);
            long duration = end(s, i) - s.start(i);
            self[i] += duration;
            // the parent is the last event recorded one level up: it was still open when this one began. A
            // dropped event never has recorded children, since a thread drops everything after its first drop.
            int p = depth > 0 ? openAtDepth[depth - 1] - 1 : -1;
            if (p >= 0) {
                self[p] -= duration;
            }
            parents[i] = p;
            if (depth >= openAtDepth.length) {
                openAtDepth = Arrays.copyOf(openAtDepth, Math.max(depth + 1, openAtDepth.length * 2));
            }
            openAtDepth[depth] = i + 1;
        }
        parent[k] = parents;
        selfNanos[k] = self;
    }

    /** Returns the end of an event, the stop time for an event still open at stop. */
    long end(ThreadBuffer.Snapshot s, int i) {
        long end = s.end(i);
        return end == 0 || end < s.start(i) ? Math.max(stopNanos, s.start(i)) : end;
    }
}
