package dev.vantage.device.kit.emulation;

import java.util.ArrayList;
import java.util.List;

import dev.vantage.device.kit.ActivityRecord;

/**
 * A device's activity-record buffer: bounded, so that tracing never exhausts memory; records beyond the bound are
 * dropped and counted, as CUPTI counts dropped records. Thread-safe.
 */
public final class RecordBuffer {

    private List<ActivityRecord> records = new ArrayList<>();
    private long capacity;
    private long dropped;

    /** Empties the buffer, resets the drop count and sets the capacity. */
    public synchronized void reset(long maxRecords) {
        records = new ArrayList<>();
        capacity = maxRecords;
        dropped = 0;
    }

    /** Adds a record, or counts it dropped when the buffer is full. */
    public synchronized void add(ActivityRecord record) {
        if (records.size() < capacity) {
            records.add(record);
        } else {
            dropped++;
        }
    }

    /** Hands over and forgets the records. */
    public synchronized List<ActivityRecord> drain() {
        List<ActivityRecord> out = records;
        records = new ArrayList<>();
        return out;
    }

    /** Returns the records dropped since the last reset. */
    public synchronized long dropped() {
        return dropped;
    }
}
