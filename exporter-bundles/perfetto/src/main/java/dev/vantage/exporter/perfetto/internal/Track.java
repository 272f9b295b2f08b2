package dev.vantage.exporter.perfetto.internal;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import dev.vantage.perfetto.format.proto.TrackDescriptor;

/**
 * A row of slices: a host thread, the GC pseudo-thread or a device stream. The first pass over the trace records
 * where its events break time order ({@link #observe}): the events of one thread come in a few runs, each in time
 * order (the profiler's step annotations first, its ops later, the device runtime's launch calls after all host
 * events), which the second pass merges back into one ordered stream. The second pass places each slice on the
 * first lane where it nests; a slice that overlaps another partly opens a new lane, drawn as a child track.
 */
final class Track {

    /** Beyond this many runs a track's events are not merged but placed as they come: lanes keep them apart. */
    static final int MAX_RUNS = 64;
    /** Beyond this many lanes a track's further overlapping slices are dropped and counted. */
    static final int MAX_LANES = 1024;

    final String name;
    final TrackDescriptor descriptor;
    /** The process this track belongs to (declared before it), or null. */
    final TrackDescriptor process;
    private final Tracks owner;
    private final List<Lane> lanes = new ArrayList<>();

    // first pass
    private long lastStart = Long.MIN_VALUE;
    private int runs;
    private long[] runFirst = new long[2];
    private long[] runLast = new long[2];

    // second pass: the last outermost backward op with a forward/backward flow, which nested ones must not end again
    long lastBackwardKey = -1;
    long lastBackwardEnd;

    Track(Tracks owner, String name, TrackDescriptor descriptor, TrackDescriptor process) {
        this.owner = owner;
        this.name = name;
        this.descriptor = descriptor;
        this.process = process;
    }

    long uuid() {
        return descriptor.getUuid();
    }

    /** Notes that the event at cursor position {@code index} starts at {@code start}. */
    void observe(long index, long start) {
        if (runs == 0 || start < lastStart) {
            if (runs < MAX_RUNS + 1) {
                if (runs == runFirst.length) {
                    runFirst = Arrays.copyOf(runFirst, runs * 2);
                    runLast = Arrays.copyOf(runLast, runs * 2);
                }
                runFirst[runs] = index;
            }
            runs++;
        }
        if (runs <= MAX_RUNS + 1) {
            runLast[runs - 1] = index;
        }
        lastStart = start;
    }

    /** Returns whether the second pass reads this track through a merge of its runs. */
    boolean merged() {
        return runs > 1 && runs <= MAX_RUNS;
    }

    int runs() {
        return merged() ? runs : 1;
    }

    long runFirst(int run) {
        return runFirst[run];
    }

    long runLast(int run) {
        return runLast[run];
    }

    /**
     * Returns the lane a slice from {@code start} to {@code end} goes to (an instant has {@code end == start}),
     * opening one if none takes it; null when the track has no lane left.
     */
    Lane place(long start, long end) throws IOException {
        for (Lane lane : lanes) {
            if (lane.accepts(start, end)) {
                return lane;
            }
        }
        if (lanes.size() == MAX_LANES) {
            return null;
        }
        Lane lane = owner.newLane(this, lanes.size());
        lanes.add(lane);
        lane.accepts(start, end);
        return lane;
    }

    int laneCount() {
        return lanes.size();
    }

    /** Ends every slice still open. */
    void close() throws IOException {
        for (Lane lane : lanes) {
            lane.closeAll();
        }
    }
}
