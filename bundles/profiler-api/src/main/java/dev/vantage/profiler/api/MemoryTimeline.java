package dev.vantage.profiler.api;

import java.util.List;
import java.util.Objects;

/**
 * One device's memory over a recorded cycle, by category, as torch's {@code MemoryProfileTimeline}: what
 * {@link ProfileResult#exportMemoryTimeline} writes. The profiler core builds it from the cycle's {@code [memory]}
 * events, the blocks live when the window began and the runtime's re-categorisations; a
 * {@link dev.vantage.profiler.spi.ViewExporter} writes it. Immutable: the arrays are copied in and out.
 */
public final class MemoryTimeline {

    /** torch's action number for a block live when the window began, in {@link #raw()} rows. */
    public static final int PREEXISTING = 1;
    /** torch's action number for an allocation. */
    public static final int CREATE = 2;
    /** torch's action number for a free. */
    public static final int DESTROY = 4;

    private final String device;
    private final boolean emulated;
    private final long[] timesMicros;
    private final long[][] sizes;
    private final long[] reserved;
    private final long[] totalAllocated;
    private final long[][] raw;

    /**
     * @param device the device, as {@code npu:0} or {@code cpu}
     * @param emulated whether the device is emulated
     * @param timesMicros each point's time: whole microseconds since the Unix epoch, ascending
     * @param sizes each point's bytes: {@code [0, PARAMETER, ..., Unknown]}, one entry per
     *     {@link dev.vantage.profiler.memory.MemoryCategory} after torch's leading 0
     * @param reserved each point's reserved bytes
     * @param totalAllocated each point's allocated bytes, from its last event's {@code Total Allocated}
     * @param raw torch's raw rows: {@code [timestamp ns (-1 for pre-existing), action, bytes, category index]}
     * @throws IllegalArgumentException if the per-point arrays differ in length
     */
    public MemoryTimeline(String device, boolean emulated, long[] timesMicros, long[][] sizes, long[] reserved,
            long[] totalAllocated, long[][] raw) {
        this.device = Objects.requireNonNull(device, "device");
        this.emulated = emulated;
        int n = timesMicros.length;
        if (sizes.length != n || reserved.length != n || totalAllocated.length != n) {
            throw new IllegalArgumentException("a memory timeline needs one size row, reserved and allocated figure"
                    + " per point: " + n + " points, " + sizes.length + ", " + reserved.length + ", "
                    + totalAllocated.length);
        }
        this.timesMicros = timesMicros.clone();
        this.sizes = deep(sizes);
        this.reserved = reserved.clone();
        this.totalAllocated = totalAllocated.clone();
        this.raw = deep(raw);
    }

    private static long[][] deep(long[][] rows) {
        long[][] copy = new long[rows.length][];
        for (int i = 0; i < rows.length; i++) {
            copy[i] = rows[i].clone();
        }
        return copy;
    }

    /** Returns the device, as {@code npu:0} or {@code cpu}. */
    public String device() {
        return device;
    }

    /** Returns whether the device is emulated. */
    public boolean emulated() {
        return emulated;
    }

    /** Returns the number of points. */
    public int points() {
        return timesMicros.length;
    }

    /** Returns a point's time, in whole microseconds since the Unix epoch. */
    public long timeMicros(int point) {
        return timesMicros[point];
    }

    /** Returns a point's bytes, {@code [0, PARAMETER, ..., Unknown]}; a copy. */
    public long[] sizes(int point) {
        return sizes[point].clone();
    }

    /** Returns a point's reserved bytes. */
    public long reserved(int point) {
        return reserved[point];
    }

    /** Returns a point's allocated bytes. */
    public long totalAllocated(int point) {
        return totalAllocated[point];
    }

    /** Returns torch's raw rows, {@code [timestamp ns, action, bytes, category index]}; copies. */
    public List<long[]> raw() {
        return List.of(deep(raw));
    }
}
