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
 * </ul>
 */
public class DriverSession implements ActivitySession {

    /** Config key: the activity buffer's capacity in records. */
    public static final String MAX_RECORDS = "device_buffer_records";
    /** The buffer's capacity when the config does not say. */
    public static final long DEFAULT_MAX_RECORDS = 1 << 18;
    /** How long {@link #stop()} waits for launched work to finish. */
    public static final long STOP_TIMEOUT_NANOS = 10_000_000_000L;

    private final TracingDriver driver;
    private final long maxRecords;
    private final List<String> errors = new ArrayList<>();
    private ClockCalibration.Sample[] startSamples;
    private ClockCalibration.Sample[] stopSamples;
    private long windowStart;
    private long windowStop;
    private boolean started;
    private boolean stopped;
    private List<ActivityRecord> records = List.of();
    private long bufferDropped;

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
        startSamples = samples();
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

    @Override
    public synchronized void stop() {
        if (!started || stopped) {
            return;
        }
        stopped = true;
        windowStop = System.nanoTime();
        for (int d = 0; d < driver.deviceCount(); d++) {
            if (!driver.synchronizeDevice(d, STOP_TIMEOUT_NANOS)) {
                errors.add(driver.deviceType() + ":" + d + " was still running launched work "
                        + STOP_TIMEOUT_NANOS / 1_000_000_000 + " s after the profile stopped; work finishing later"
                        + " is missing");
            }
        }
        driver.disableActivity();
        records = driver.flushActivity();
        bufferDropped = driver.droppedRecords();
        stopSamples = samples();
    }

    private ClockCalibration.Sample[] samples() {
        ClockCalibration.Sample[] s = new ClockCalibration.Sample[driver.deviceCount()];
        for (int d = 0; d < s.length; d++) {
            int device = d;
            s[d] = ClockCalibration.sample(() -> driver.deviceTimestamp(device));
        }
        return s;
    }

    /** Returns a device's calibration; valid after {@link #stop()}. */
    public synchronized ClockCalibration calibration(int device) {
        return ClockCalibration.fit(startSamples[device], stopSamples == null ? null : stopSamples[device],
                driver.timestampFrequency(device));
    }

    @Override
    public synchronized DeviceActivities collect() {
        stop();
        if (!started) {
            return new DeviceActivities(List.of(), List.of(), Map.of("emulated", Boolean.toString(driver.emulated())),
                    List.of("the session never started"), 0);
        }
        int devices = driver.deviceCount();
        ClockCalibration[] calibrations = new ClockCalibration[devices];
        long bound = 0;
        for (int d = 0; d < devices; d++) {
            calibrations[d] = calibration(d);
            bound = Math.max(bound, calibrations[d].errorBoundNanos());
        }
        Map<Long, ActivityRecord> launches = new HashMap<>();
        Set<Long> launched = new HashSet<>();
        for (ActivityRecord r : records) {
            if (r.onHost()) {
                launches.put(r.correlation(), r);
            } else if (r.deviceIndex() < devices) {
                launched.add(r.correlation());
            }
        }
        List<DeviceActivity> activities = new ArrayList<>(records.size());
        long outOfWindow = 0;
        long unlinked = 0;
        long outOfOrder = 0;
        for (ActivityRecord r : records) {
            if (r.onHost()) {
                if (inWindow(r.start())) {
                    // a runtime call that launched nothing (a commit, a synchronize) starts no flow
                    long flow = launched.contains(r.correlation()) ? r.correlation() : -1;
                    activities.add(new DeviceActivity(r.name(), r.kind(), r.deviceIndex(), r.streamId(), r.start(),
                            r.end(), r.externalId(), r.threadId(), flow, r.args()));
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
                    launch == null ? -1 : r.correlation(), r.args()));
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
        metadata.put("emulated", Boolean.toString(driver.emulated()));
        metadata.put("records", Long.toString(records.size()));
        metadata.put("buffer_dropped_records", Long.toString(bufferDropped));
        metadata.put("out_of_window_records", Long.toString(outOfWindow));
        metadata.put("unlinked_records", Long.toString(unlinked));
        metadata.put("clock_error_bound_ns", Long.toString(bound));
        metadata.putAll(extraMetadata());
        List<TraceDevice> traceDevices = new ArrayList<>();
        for (int d = 0; d < devices; d++) {
            traceDevices.add(new TraceDevice(driver.deviceType(), d, driver.emulated(), driver.properties(d)));
        }
        return new DeviceActivities(traceDevices, activities, metadata, errors, bufferDropped + outOfWindow);
    }

    /** Facts a subclass adds to the trace metadata; none by default. */
    protected Map<String, String> extraMetadata() {
        return Map.of();
    }

    private boolean inWindow(long hostNanos) {
        return hostNanos >= windowStart && hostNanos <= windowStop;
    }
}
