package dev.vantage.device.spyre.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import dev.vantage.device.kit.ActivityRecord;
import dev.vantage.device.kit.emulation.EmulatedDevice;
import dev.vantage.device.spyre.driver.SpyreTracing;

/**
 * The emulated driver's tracing library, standing in for libaiupti: it switches the record buffers of the
 * initialised devices on and off, arms devices that initialise while it records, keeps the per-thread external
 * correlation stack, and reads the cards' clocks.
 *
 * <p>The stack is the library's, not a device's: the driver pushes its top onto a device for the length of each
 * runtime call ({@link #pushOnto}), so that work launched on a device that initialised after the id was pushed
 * still records it.
 */
final class EmulatedAiupti implements SpyreTracing {

    static final String LIBRARY = "libaiupti";

    private final List<SpyreCard> cards;
    private final Object lock;
    private final ThreadLocal<long[]> stack = ThreadLocal.withInitial(() -> new long[8]);
    private volatile boolean recording;
    private long maxRecords;

    /**
     * Creates the library over the driver's cards.
     *
     * @param lock the driver's lock, which it holds while it publishes a newly initialised device
     */
    EmulatedAiupti(List<SpyreCard> cards, Object lock) {
        this.cards = cards;
        this.lock = lock;
    }

    @Override
    public String description() {
        return LIBRARY + " 1.0 (emulated)";
    }

    @Override
    public void enableActivity(long maxRecords) {
        if (maxRecords <= 0) {
            throw new IllegalArgumentException("the activity buffer needs a positive capacity, not " + maxRecords);
        }
        synchronized (lock) {
            this.maxRecords = maxRecords;
            recording = true;
            for (SpyreCard c : cards) {
                EmulatedDevice d = c.emulated();
                if (d != null) {
                    d.enableActivity(maxRecords);
                }
            }
        }
    }

    @Override
    public void disableActivity() {
        synchronized (lock) {
            recording = false;
            for (SpyreCard c : cards) {
                EmulatedDevice d = c.emulated();
                if (d != null) {
                    d.disableActivity();
                }
            }
        }
    }

    @Override
    public boolean activityEnabled() {
        return recording;
    }

    /**
     * Arms a device that has just initialised, if the library is recording; called with the driver's lock held,
     * before the device is published.
     *
     * @return true if the device records
     */
    boolean arm(EmulatedDevice d) {
        synchronized (lock) {
            if (recording) {
                d.enableActivity(maxRecords);
            }
            return recording;
        }
    }

    @Override
    public List<ActivityRecord> flushActivity() {
        List<ActivityRecord> all = new ArrayList<>();
        for (SpyreCard c : cards) {
            EmulatedDevice d = c.emulated();
            if (d != null) {
                all.addAll(d.flushActivity());
            }
        }
        return all;
    }

    @Override
    public long droppedRecords() {
        long n = 0;
        for (SpyreCard c : cards) {
            EmulatedDevice d = c.emulated();
            if (d != null) {
                n += d.droppedRecords();
            }
        }
        return n;
    }

    @Override
    public void pushExternalCorrelation(long id) {
        long[] s = stack.get();
        int depth = (int) s[0] + 1;
        if (depth >= s.length) {
            s = Arrays.copyOf(s, s.length * 2);
            stack.set(s);
        }
        s[depth] = id;
        s[0] = depth;
    }

    @Override
    public void popExternalCorrelation() {
        long[] s = stack.get();
        if (s[0] > 0) {
            s[0]--;
        }
    }

    @Override
    public long externalCorrelation() {
        long[] s = stack.get();
        return s[0] > 0 ? s[(int) s[0]] : -1;
    }

    /**
     * Pushes the calling thread's external correlation id, if it has one, onto a device's stack for the runtime
     * call about to be made; the caller pops it after the call when this returns true.
     */
    boolean pushOnto(EmulatedDevice d) {
        long[] s = stack.get();
        if (s[0] == 0) {
            return false;
        }
        d.pushExternalCorrelation(s[(int) s[0]]);
        return true;
    }

    @Override
    public long deviceTimestamp(int device) {
        return SpyreCard.of(cards, device).clock().now();
    }

    @Override
    public long timestampFrequency(int device) {
        return SpyreCard.of(cards, device).clock().frequency();
    }
}
