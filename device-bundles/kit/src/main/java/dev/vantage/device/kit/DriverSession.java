package dev.vantage.device.kit;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.vantage.profiler.spi.ActivitySession;
import dev.vantage.profiler.spi.DeviceActivities;
import dev.vantage.profiler.spi.DeviceActivity;
import dev.vantage.profiler.trace.TraceDevice;

/**
 * One profile's session over a {@link TracingDriver}, following Kineto's session contract
 * ({@code reference: device-plugins.md §1.2, §1.7–1.9}).
 *
 * <ul>
 *   <li>{@link #start()} samples every device's clock, then enables the driver's activity buffer.</li>
 *   <li>Correlation push and pop go to the driver's external-correlation stack, so every launch records the host
 *       op it was made under.</li>
 *   <li>{@link #stop()} waits (up to {@link #STOP_TIMEOUT_NANOS}) for the work launched so far to finish, so a
 *       kernel launched inside the window is not lost for still running; then it disables the buffer, takes the
 *       records and samples the clocks again.</li>
 *   <li>{@link #collect()} converts device ticks to host time through a {@link ClockCalibration} per device,
 *       joins each piece of device work to its launch by the driver's correlation id (giving it the launch's
 *       host op and thread), and keeps what was launched inside the window. Records outside it, records the full
 *       buffer dropped, work whose launch record is missing, and work that appears to start before its launch
 *       are counted in the metadata and errors, never silently lost.</li>
 *   <li>{@link #swapDriver} hands the session to another driver while it records (a vendor's driver arriving,
 *       or leaving for the emulated one): the outgoing driver's work is waited for and its records taken and
 *       calibrated against its own clock, the incoming driver is sampled and enabled, and the trace metadata
 *       names every swap. No event of either driver is lost to the swap.</li>
 * </ul>
 */
public class DriverSession implements ActivitySession {

    /** Config key: the activity buffer's capacity in records. */
    public static final String MAX_RECORDS = "device_buffer_records";

    /** The buffer's capacity when the config does not say. */
    public static final long DEFAULT_MAX_RECORDS = 1 << 18;

    /** How long {@link #stop()} waits for launched work to finish. */
    public static final long STOP_TIMEOUT_NANOS = 10_000_000_000L;

    /** What one driver recorded while it held the session. */
    private record Epoch(TracingDriver driver, ClockCalibration.Sample[] startSamples,
            ClockCalibration.Sample[] stopSamples, List<ActivityRecord> records, long dropped) {
    }

    private volatile TracingDriver driver;
    private final long maxRecords;
    private final List<String> errors = new ArrayList<>();
    private final List<Epoch> epochs = new ArrayList<>();
    private final List<String> swaps = new ArrayList<>();
    private ClockCalibration.Sample[] startSamples;
    private long windowStart;
    private long windowStop;
    private boolean started;
    private boolean stopped;

    /**
     * Creates a session; nothing is recorded before {@link #start()}.
     *
     * @param config the profile's settings; {@link #MAX_RECORDS} sets the buffer capacity
     * @throws IllegalArgumentException if the capacity is not a positive number
     */
    public DriverSession(TracingDriver driver, Map<String, String> config) {
        this.driver = driver;
        String max = config.get(MAX_RECORDS);
        try {
            this.maxRecords = max == null ? DEFAULT_MAX_RECORDS : Long.parseLong(max.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(MAX_RECORDS + " must be a number of records, not '" + max + "'", e);
        }
        if (maxRecords <= 0) {
            throw new IllegalArgumentException(MAX_RECORDS + " must be positive, not " + maxRecords);
        }
    }

    @Override
    public synchronized void start() {
        startSamples = samples(driver);
        windowStart = System.nanoTime();
        driver.enableActivity(maxRecords);
        started = true;
    }

    @Override
    public void pushCorrelation(long correlation) {
        driver.pushExternalCorrelation(correlation);
    }

    @Override
    public void popCorrelation() {
        driver.popExternalCorrelation();
    }

    /** Returns the driver the session records from now. */
    public TracingDriver driver() {
        return driver;
    }

    /**
     * Hands the session to another driver of the same device type. While recording, the outgoing driver's launched
     * work is waited for (up to {@link #STOP_TIMEOUT_NANOS}), its records are taken and its clocks sampled, and the
     * incoming driver's clocks are sampled and its buffer enabled; the swap is named in the trace metadata. Before
     * {@link #start()} the session simply uses the new driver; after {@link #stop()} nothing changes.
     *
     * @throws IllegalArgumentException if the driver serves another device type
     */
    public synchronized void swapDriver(TracingDriver next) {
        TracingDriver previous = driver;
        if (next == previous || stopped) {
            return;
        }
        if (!next.deviceType().equals(previous.deviceType())) {
            throw new IllegalArgumentException("a " + previous.deviceType() + " session cannot move to a "
                    + next.deviceType() + " driver");
        }
        if (!started) {
            driver = next;
            return;
        }
        long at = System.nanoTime();
        finishEpoch();
        swaps.add(describe(previous) + " -> " + describe(next) + " at +" + (at - windowStart) / 1000 + " us");
        startSamples = samples(next);
        driver = next;
        next.enableActivity(maxRecords);
    }

    private static String describe(TracingDriver d) {
        return d.getClass().getName() + (d.emulated() ? " (emulated)" : " (native)");
    }

    /** Waits for the current driver's work, takes its records and samples its clocks. */
    private void finishEpoch() {
        TracingDriver d = driver;
        for (int i = 0; i < d.deviceCount(); i++) {
            if (!d.synchronizeDevice(i, STOP_TIMEOUT_NANOS)) {
                errors.add(d.deviceType() + ":" + i + " was still running launched work "
                        + STOP_TIMEOUT_NANOS / 1_000_000_000 + " s after " + describe(d) + " stopped recording;"
                        + " work finishing later is missing");
            }
        }
        d.disableActivity();
        List<ActivityRecord> records = d.flushActivity();
        long dropped = d.droppedRecords();
        epochs.add(new Epoch(d, startSamples, samples(d), records, dropped));
    }

    @Override
    public synchronized void stop() {
        if (!started || stopped) {
            return;
        }
        stopped = true;
        windowStop = System.nanoTime();
        finishEpoch();
    }

    private static ClockCalibration.Sample[] samples(TracingDriver driver) {
        ClockCalibration.Sample[] s = new ClockCalibration.Sample[driver.deviceCount()];
        for (int d = 0; d < s.length; d++) {
            int device = d;
            s[d] = ClockCalibration.sample(() -> driver.deviceTimestamp(device));
        }
        return s;
    }

    /** Returns a device's calibration for the last driver that recorded; valid after {@link #stop()}. */
    public synchronized ClockCalibration calibration(int device) {
        return calibration(epochs.get(epochs.size() - 1), device);
    }

    private static ClockCalibration calibration(Epoch e, int device) {
        return ClockCalibration.fit(e.startSamples()[device], e.stopSamples()[device],
                e.driver().timestampFrequency(device));
    }

    @Override
    public synchronized DeviceActivities collect() {
        stop();
        TracingDriver last = driver;
        if (!started) {
            return new DeviceActivities(List.of(), List.of(), Map.of("emulated", Boolean.toString(last.emulated())),
                    List.of("the session never started"), 0);
        }
        List<DeviceActivity> activities = new ArrayList<>();
        long recordCount = 0;
        long bufferDropped = 0;
        long outOfWindow = 0;
        long unlinked = 0;
        long outOfOrder = 0;
        long bound = 0;
        for (int epoch = 0; epoch < epochs.size(); epoch++) {
            Epoch e = epochs.get(epoch);
            int devices = e.driver().deviceCount();
            ClockCalibration[] calibrations = new ClockCalibration[devices];
            for (int d = 0; d < devices; d++) {
                calibrations[d] = calibration(e, d);
                bound = Math.max(bound, calibrations[d].errorBoundNanos());
            }
            List<ActivityRecord> records = e.records();
            recordCount += records.size();
            bufferDropped += e.dropped();
            // correlation ids are the driver's own: launches join their work within one driver's records
            Map<Long, ActivityRecord> launches = new HashMap<>();
            Set<Long> launched = new HashSet<>();
            for (ActivityRecord r : records) {
                if (r.onHost()) {
                    launches.put(r.correlation(), r);
                } else if (r.deviceIndex() < devices) {
                    launched.add(r.correlation());
                }
            }
            for (ActivityRecord r : records) {
                if (r.onHost()) {
                    if (inWindow(r.start())) {
                        // a runtime call that launched nothing (a commit, a synchronize) starts no flow
                        long flow = launched.contains(r.correlation()) ? flowId(epoch, r.correlation()) : -1;
                        activities.add(new DeviceActivity(r.name(), r.kind(), r.deviceIndex(), r.streamId(),
                                r.start(), r.end(), r.externalId(), r.threadId(), flow, r.args()));
                    } else {
                        outOfWindow++;
                    }
                    continue;
                }
                if (r.deviceIndex() >= devices) {
                    unlinked++;
                    continue;
                }
                ClockCalibration c = calibrations[r.deviceIndex()];
                long start = c.toHostNanos(r.start());
                long end = Math.max(start, c.toHostNanos(r.end()));
                ActivityRecord launch = launches.get(r.correlation());
                if (!inWindow(launch != null ? launch.start() : start)) {
                    outOfWindow++;
                    continue;
                }
                if (launch == null) {
                    unlinked++;
                } else if (start < launch.start()) {
                    outOfOrder++;
                }
                activities.add(new DeviceActivity(r.name(), r.kind(), r.deviceIndex(), r.streamId(), start, end,
                        launch == null ? -1 : launch.externalId(), launch == null ? -1 : launch.threadId(),
                        launch == null ? -1 : flowId(epoch, r.correlation()), r.args()));
            }
        }
        if (bufferDropped > 0) {
            errors.add(bufferDropped + " activity records dropped: the buffer of " + maxRecords
                    + " records was full (raise " + MAX_RECORDS + ")");
        }
        if (outOfOrder > 0) {
            errors.add(outOfOrder + " device records start before their launch (gpu_and_cpu_op_out_of_order);"
                    + " the clock calibration is off by more than its bound of " + bound + " ns");
        }
        Map<String, String> metadata = new LinkedHashMap<>();
        metadata.put("emulated", Boolean.toString(last.emulated()));
        metadata.put("records", Long.toString(recordCount));
        metadata.put("buffer_dropped_records", Long.toString(bufferDropped));
        metadata.put("out_of_window_records", Long.toString(outOfWindow));
        metadata.put("unlinked_records", Long.toString(unlinked));
        metadata.put("clock_error_bound_ns", Long.toString(bound));
        if (!swaps.isEmpty()) {
            metadata.put("driver_swaps", Integer.toString(swaps.size()));
            for (int i = 0; i < swaps.size(); i++) {
                metadata.put("driver_swap." + (i + 1), swaps.get(i));
            }
        }
        metadata.putAll(extraMetadata());
        List<TraceDevice> traceDevices = new ArrayList<>();
        for (int d = 0; d < last.deviceCount(); d++) {
            traceDevices.add(new TraceDevice(last.deviceType(), d, last.emulated(), last.properties(d)));
        }
        return new DeviceActivities(traceDevices, activities, metadata, errors, bufferDropped + outOfWindow);
    }

    /**
     * The flow id of a driver's correlation id: the id itself for the first driver, so that traces without a swap
     * keep the driver's ids; later drivers' ids are moved into a range of their own, since each driver counts
     * from its own start.
     */
    private static long flowId(int epoch, long correlation) {
        return epoch == 0 ? correlation : ((long) epoch << 48) | correlation;
    }

    /** Facts a subclass adds to the trace metadata; none by default. */
    protected Map<String, String> extraMetadata() {
        return Map.of();
    }

    private boolean inWindow(long hostNanos) {
        return hostNanos >= windowStart && hostNanos <= windowStop;
    }
}
