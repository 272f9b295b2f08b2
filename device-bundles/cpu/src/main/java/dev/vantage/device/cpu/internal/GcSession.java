package dev.vantage.device.cpu.internal;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.GcInfo;

import dev.vantage.profiler.spi.ActivitySession;
import dev.vantage.profiler.spi.DeviceActivities;
import dev.vantage.profiler.spi.DeviceActivity;
import dev.vantage.profiler.trace.EventKind;

/**
 * Collects the JVM's garbage-collection pauses while a profile records, from the collectors' notifications. They
 * cost nothing between collections, and need no flight recording, but carry times truncated to milliseconds
 * (the JVM's start time plus the collection's start, both whole milliseconds), so a pause is placed within
 * 2 ms; the trace metadata says so. At most {@link #MAX_PAUSES} pauses are kept; more are counted as dropped.
 */
final class GcSession implements ActivitySession, NotificationListener {

    static final int MAX_PAUSES = 100_000;

    private final List<DeviceActivity> pauses = new ArrayList<>();
    private final List<NotificationEmitter> emitters = new ArrayList<>();
    /** Add to a {@code nanoTime} value to get nanoseconds since the Unix epoch. */
    private long epochOffsetNanos;
    /** The JVM's start in epoch milliseconds: GC start times are milliseconds after it, on the wall clock. */
    private long jvmStartEpochMillis;
    private long dropped;

    @Override
    public void start() {
        Instant wall = Instant.now();
        epochOffsetNanos = wall.getEpochSecond() * 1_000_000_000L + wall.getNano() - System.nanoTime();
        jvmStartEpochMillis = ManagementFactory.getRuntimeMXBean().getStartTime();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter emitter) {
                emitter.addNotificationListener(this, null, null);
                emitters.add(emitter);
            }
        }
    }

    @Override
    public void handleNotification(Notification notification, Object handback) {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
            return;
        }
        GarbageCollectionNotificationInfo info =
                GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
        GcInfo gc = info.getGcInfo();
        // measured here: start time + GC start matches the wall clock, while the uptime clock is 20 ms off
        long startNanos = (jvmStartEpochMillis + gc.getStartTime()) * 1_000_000L - epochOffsetNanos;
        long endNanos = startNanos + Math.max(0, gc.getDuration()) * 1_000_000L;
        String name = "GC: " + info.getGcName() + " (" + info.getGcCause() + ")";
        synchronized (this) {
            if (pauses.size() < MAX_PAUSES) {
                pauses.add(new DeviceActivity(name, EventKind.GC, 0, -1, startNanos,
                        endNanos, -1, -1));
            } else {
                dropped++;
            }
        }
    }

    @Override
    public void stop() {
        for (NotificationEmitter emitter : emitters) {
            try {
                emitter.removeNotificationListener(this);
            } catch (ListenerNotFoundException e) {
                // already gone with its collector
            }
        }
        emitters.clear();
    }

    @Override
    public void pushCorrelation(long correlation) {
        // the JVM launches no device work
    }

    @Override
    public void popCorrelation() {
        // the JVM launches no device work
    }

    @Override
    public synchronized DeviceActivities collect() {
        return new DeviceActivities(List.of(), pauses, Map.of("gc_time_resolution", "2 ms (GC notifications)"),
                List.of(), dropped);
    }
}
