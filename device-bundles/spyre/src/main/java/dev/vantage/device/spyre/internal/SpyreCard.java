package dev.vantage.device.spyre.internal;

import java.util.List;

import dev.vantage.device.kit.emulation.DeviceMemory;
import dev.vantage.device.kit.emulation.EmulatedClock;
import dev.vantage.device.kit.emulation.EmulatedDevice;
import dev.vantage.device.kit.memory.AllocatorStats;
import dev.vantage.profiler.api.MemoryStats;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.spi.HostKernels;

/**
 * One emulated Spyre card: its clock, which runs from power-on, and, once the card has initialised, its
 * {@link EmulatedDevice} (memory, streams, record buffer). Creating a card does no device work; {@link #bringUp()}
 * does it, and the driver publishes the result.
 */
final class SpyreCard {

    /** The device clock's nominal rate: 1 GHz. */
    static final long FREQUENCY = 1_000_000_000L;
    /** How far the device clock runs off its nominal rate, in parts per million. */
    static final double DRIFT_PPM = -20;
    /** The allocator's alignment of block sizes and addresses. */
    static final int ALIGNMENT = 128;
    private static final long STREAM_START_TIMEOUT_NANOS = 10_000_000_000L;

    private final Device device;
    private final int streams;
    private final long capacity;
    private final EmulatedClock clock;
    private final HostKernels host;
    private volatile EmulatedDevice emulated;
    private volatile VfSegmentTable segments;

    /**
     * Creates a card, powered on but not initialised.
     *
     * @param device the device, such as {@code spyre:0}
     * @param host the host kernels its work runs
     * @param streams how many streams it will have
     * @param capacity its memory in bytes
     */
    SpyreCard(Device device, HostKernels host, int streams, long capacity) {
        this.device = device;
        this.host = host;
        this.streams = streams;
        this.capacity = capacity;
        this.clock = new EmulatedClock(FREQUENCY, DRIFT_PPM, 0x3_5000_0000L * (device.index() + 7));
    }

    /**
     * Returns a card of a list by index.
     *
     * @throws IllegalArgumentException if there is no such card; the message names the index and the count
     */
    static SpyreCard of(List<SpyreCard> cards, int index) {
        if (index < 0 || index >= cards.size()) {
            throw new IllegalArgumentException("no spyre device " + index + "; there are " + cards.size());
        }
        return cards.get(index);
    }

    Device device() {
        return device;
    }

    EmulatedClock clock() {
        return clock;
    }

    int streams() {
        return streams;
    }

    long capacity() {
        return capacity;
    }

    /** Returns the card's first device address. */
    long baseAddress() {
        return 0x5000_0000_0000L + ((long) device.index() << 40);
    }

    /** Returns the initialised device, or null before initialisation. */
    EmulatedDevice emulated() {
        return emulated;
    }

    /** Returns the segment table, or null before initialisation. */
    VfSegmentTable segments() {
        return segments;
    }

    /**
     * Initialises the card: builds the VF segment table and the {@link VfBlockAllocator} that reserves every
     * segment of it, creates the device over them and starts every stream's worker. Does not publish the device.
     *
     * @throws IllegalStateException if a stream does not start
     */
    EmulatedDevice bringUp() {
        VfSegmentTable table = VfSegmentTable.build(capacity, ALIGNMENT, baseAddress());
        DeviceMemory memory = new DeviceMemory(device, new VfBlockAllocator(device, table));
        EmulatedDevice d = new EmulatedDevice(device, host, clock, memory, streams);
        long[] tickets = new long[streams];
        for (int s = 0; s < streams; s++) {
            tickets[s] = d.stream(s).submit(() -> { });
        }
        for (int s = 0; s < streams; s++) {
            if (!d.stream(s).await(tickets[s], STREAM_START_TIMEOUT_NANOS)) {
                d.close();
                throw new IllegalStateException(d.stream(s).name() + " did not start within "
                        + STREAM_START_TIMEOUT_NANOS / 1_000_000_000 + " s");
            }
        }
        segments = table;
        return d;
    }

    /** Makes an initialised device visible to every thread. */
    void publish(EmulatedDevice d) {
        emulated = d;
    }

    /**
     * Returns the allocator's counters: once initialised, the allocator's, whose segments are all reserved; before,
     * zero under every name, since no segment is reserved until the card initialises.
     */
    MemoryStats stats() {
        EmulatedDevice d = emulated;
        if (d != null) {
            return d.memory().stats();
        }
        // counters alone, not an allocator: one would reserve the segments and report them as held
        return new MemoryStats(device.toString(), new AllocatorStats().values());
    }

    /** Stops the streams' workers, if the card initialised. */
    void close() {
        EmulatedDevice d = emulated;
        if (d != null) {
            d.close();
        }
    }
}
