package dev.vantage.trace.engine.summary;

import java.util.List;

/**
 * The allocator's totals of one device over a trace, from its {@code [memory]} events.
 *
 * @param device the device as the csv views name it: {@code CPU}, or the type in capitals and the index
 *     ({@code NPU:0}, {@code MPS:0})
 * @param events how many {@code [memory]} events the device had
 * @param peakAllocatedBytes the most {@code Total Allocated} seen
 * @param peakReservedBytes the most {@code Total Reserved} seen
 * @param points the curve, at most {@link dev.vantage.trace.engine.AnalysedTrace#MAX_CURVE_POINTS} points: every event when there are
 *     that few, else for each of equal slices of the events the one with the most allocated, in time order
 */
public record MemoryCurve(String device, long events, long peakAllocatedBytes, long peakReservedBytes,
        List<Point> points) {

    /** Copies the list. */
    public MemoryCurve {
        points = List.copyOf(points);
    }

    /**
     * One point of a curve.
     *
     * @param epochNanos when, in nanoseconds since the Unix epoch
     * @param allocatedBytes {@code Total Allocated} after the event
     * @param reservedBytes {@code Total Reserved} after the event
     */
    public record Point(long epochNanos, long allocatedBytes, long reservedBytes) {
    }
}
