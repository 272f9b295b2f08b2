package dev.vantage.profiler.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The peak memory of devices over a stretch of work, for scripts, as cache-dit's memory helper and the pattern of
 * {@code torch.cuda.reset_peak_memory_stats()} then {@code max_memory_allocated()} give it: starting resets the
 * devices' peaks; closing reads them. {@code vantage run --track-memory} prints the same report.
 *
 * <pre>{@code
 * try (MemoryTracker memory = MemoryTracker.start(memoryAdmin, "npu:0")) {
 *     model.train(batch);
 *     memory.close();
 *     System.out.print(memory.report());  // peak memory: npu:0 allocated 8.26 MiB, reserved 10.00 MiB of 8.00 GiB
 * }
 * }</pre>
 *
 * <p>Peaks are per device, not per tracker: two trackers over the same device at once reset each other's.
 */
public final class MemoryTracker implements AutoCloseable {

    /**
     * A device's peaks.
     *
     * @param device such as {@code npu:0}
     * @param allocated the most bytes tensors occupied ({@code allocated_bytes.all.peak})
     * @param reserved the most bytes the allocator held ({@code reserved_bytes.all.peak})
     * @param capacity the bytes the device has, or 0 when unknown
     */
    public record Peak(String device, long allocated, long reserved, long capacity) {

        /** Returns {@code npu:0 allocated 8.26 MiB, reserved 10.00 MiB of 8.00 GiB}. */
        @Override
        public String toString() {
            return device + " allocated " + formatSize(allocated) + ", reserved " + formatSize(reserved)
                    + (capacity > 0 ? " of " + formatSize(capacity) : "");
        }
    }

    private final MemoryAdmin memory;
    private final List<String> devices;
    private List<Peak> peaks;

    private MemoryTracker(MemoryAdmin memory, List<String> devices) {
        this.memory = memory;
        this.devices = devices;
    }

    /**
     * Resets the peaks of devices and starts tracking them.
     *
     * @param devices such as {@code npu:0} or {@code cpu}; none for every device with an allocator
     * @throws IllegalArgumentException if no installed allocator serves one of them
     */
    public static MemoryTracker start(MemoryAdmin memory, String... devices) {
        Objects.requireNonNull(memory, "memory");
        List<String> list = devices.length == 0 ? memory.devices() : List.of(devices);
        for (String d : list) {
            memory.resetPeakMemoryStats(d);
        }
        return new MemoryTracker(memory, list);
    }

    /** Returns the peaks: so far while tracking, those at {@link #close()} after it. */
    public List<Peak> peaks() {
        return peaks != null ? peaks : read();
    }

    private List<Peak> read() {
        List<Peak> out = new ArrayList<>();
        for (String d : devices) {
            out.add(new Peak(d, memory.maxMemoryAllocated(d), memory.maxMemoryReserved(d),
                    memory.memoryCapacity(d)));
        }
        return List.copyOf(out);
    }

    /** Stops tracking: the peaks are read now and kept. */
    @Override
    public void close() {
        if (peaks == null) {
            peaks = read();
        }
    }

    /** Returns one line per device: {@code peak memory: npu:0 allocated 8.26 MiB, reserved 10.00 MiB of 8.00 GiB}. */
    public String report() {
        StringBuilder out = new StringBuilder();
        for (Peak p : peaks()) {
            out.append("peak memory: ").append(p).append('\n');
        }
        return out.toString();
    }

    /** Formats bytes as torch's allocator messages do: bytes up to 1 KiB, then KiB, MiB or GiB with two decimals. */
    public static String formatSize(long bytes) {
        if (bytes <= 1024) {
            return bytes + " bytes";
        }
        if (bytes <= 1L << 20) {
            return String.format(Locale.ROOT, "%.2f KiB", bytes / 1024.0);
        }
        if (bytes <= 1L << 30) {
            return String.format(Locale.ROOT, "%.2f MiB", bytes / (double) (1L << 20));
        }
        return String.format(Locale.ROOT, "%.2f GiB", bytes / (double) (1L << 30));
    }
}
