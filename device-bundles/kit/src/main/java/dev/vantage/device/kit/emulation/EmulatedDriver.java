package dev.vantage.device.kit.emulation;

import java.util.ArrayList;
import java.util.List;

import dev.vantage.device.kit.ActivityRecord;
import dev.vantage.device.kit.DeviceDriver;
import dev.vantage.device.kit.memory.BlockAllocator;
import dev.vantage.profiler.api.MemoryStats;

/**
 * The part of an emulated driver every device shares: device count, memory counters, the activity-record buffer,
 * external correlation, device clocks and synchronisation, over a list of {@link EmulatedDevice}s. A device bundle's
 * emulated driver extends it and adds its device properties and its launches. It is always {@link #emulated()}.
 */
public abstract class EmulatedDriver implements DeviceDriver {

    private final String type;
    private final List<EmulatedDevice> devices;

    /**
     * Creates a driver over devices of one type.
     *
     * @param type the device type, as the devices' {@code Device} names it
     * @param devices the devices, index 0 first
     */
    protected EmulatedDriver(String type, List<EmulatedDevice> devices) {
        this.type = type;
        this.devices = List.copyOf(devices);
    }

    /**
     * Returns a device.
     *
     * @throws IllegalArgumentException if there is no such device; the message says how many there are
     */
    protected final EmulatedDevice device(int index) {
        if (index < 0 || index >= devices.size()) {
            throw new IllegalArgumentException("no " + type + " device " + index + "; there are " + devices.size());
        }
        return devices.get(index);
    }

    /** Stops every stream's worker. */
    public void close() {
        for (EmulatedDevice d : devices) {
            d.close();
        }
    }

    @Override
    public String deviceType() {
        return type;
    }

    @Override
    public int deviceCount() {
        return devices.size();
    }

    /** Always true: the work runs on host threads and the times come from emulated clocks. */
    @Override
    public final boolean emulated() {
        return true;
    }

    @Override
    public MemoryStats memoryStats(int device) {
        return device(device).memory().stats();
    }

    @Override
    public void resetPeakMemoryStats(int device) {
        device(device).memory().resetPeakStats();
    }

    @Override
    public BlockAllocator allocator(int device) {
        return device(device).memory().allocator();
    }

    @Override
    public void enableActivity(long maxRecords) {
        for (EmulatedDevice d : devices) {
            d.enableActivity(maxRecords);
        }
    }

    @Override
    public void disableActivity() {
        for (EmulatedDevice d : devices) {
            d.disableActivity();
        }
    }

    @Override
    public List<ActivityRecord> flushActivity() {
        List<ActivityRecord> all = new ArrayList<>();
        for (EmulatedDevice d : devices) {
            all.addAll(d.flushActivity());
        }
        return all;
    }

    @Override
    public long droppedRecords() {
        long n = 0;
        for (EmulatedDevice d : devices) {
            n += d.droppedRecords();
        }
        return n;
    }

    @Override
    public void pushExternalCorrelation(long id) {
        for (EmulatedDevice d : devices) {
            d.pushExternalCorrelation(id);
        }
    }

    @Override
    public void popExternalCorrelation() {
        for (EmulatedDevice d : devices) {
            d.popExternalCorrelation();
        }
    }

    @Override
    public long deviceTimestamp(int device) {
        return device(device).clock().now();
    }

    @Override
    public long timestampFrequency(int device) {
        return device(device).clock().frequency();
    }

    @Override
    public boolean synchronizeDevice(int device, long timeoutNanos) {
        return device(device).synchronize(timeoutNanos);
    }
}
