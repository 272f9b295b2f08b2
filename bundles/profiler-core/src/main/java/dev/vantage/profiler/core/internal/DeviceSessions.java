package dev.vantage.profiler.core.internal;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.api.ProfileOptions;
import dev.vantage.profiler.spi.ActivitySession;
import dev.vantage.profiler.spi.DeviceActivities;
import dev.vantage.profiler.spi.DeviceActivitySource;

/**
 * The device sessions of one recording window. Every call into a device bundle is isolated: a session that
 * throws, or a source that declines, leaves a line in the trace metadata and the host recording goes on. When a
 * device bundle leaves while the window records, its session is stopped and collected at once, so what it
 * delivered so far is kept.
 */
final class DeviceSessions {

    private static final System.Logger LOG = System.getLogger("dev.vantage.profiler.core");

    /** One source's session. */
    private static final class Entry {
        final DeviceActivitySource source;
        final String type;
        final ActivitySession session;
        DeviceActivities collected;

        Entry(DeviceActivitySource source, String type, ActivitySession session) {
            this.source = source;
            this.type = type;
            this.session = session;
        }
    }

    private final List<Entry> entries = new ArrayList<>();
    private final Map<String, String> metadata;

    private DeviceSessions(Map<String, String> metadata) {
        this.metadata = metadata;
    }

    /** Asks every source whose activity the profile records for a session. */
    static DeviceSessions configure(List<DeviceActivitySource> sources, ProfileOptions options,
            Map<String, String> metadata) {
        DeviceSessions sessions = new DeviceSessions(metadata);
        Map<String, String> config = Map.of(
                "record_shapes", options.recordShapes() ? "1" : "0",
                "with_stack", options.withStack() ? "1" : "0");
        for (DeviceActivitySource source : sources) {
            Activity activity;
            String type;
            try {
                activity = source.activity();
                type = source.deviceType();
            } catch (RuntimeException e) {
                sessions.fail("device source " + source.getClass().getName(), "failed to describe itself", e);
                continue;
            }
            if (!options.activities().contains(activity)) {
                continue;
            }
            try {
                ActivitySession s = source.configure(options.activities(), config);
                if (s == null) {
                    metadata.put("vantage.device." + type + ".session", "declined: no device activity recorded");
                } else {
                    sessions.entries.add(new Entry(source, type, s));
                }
            } catch (RuntimeException | LinkageError e) {
                sessions.fail(type, "failed to configure a session", e);
            }
        }
        return sessions;
    }

    synchronized ActivitySession[] sessions() {
        List<ActivitySession> live = new ArrayList<>();
        for (Entry e : entries) {
            if (e.collected == null) {
                live.add(e.session);
            }
        }
        return live.toArray(new ActivitySession[0]);
    }

    synchronized void start() {
        for (Entry e : new ArrayList<>(entries)) {
            try {
                e.session.start();
            } catch (RuntimeException | LinkageError x) {
                entries.remove(e);
                fail(e.type, "failed to start", x);
            }
        }
    }

    /** Stops and collects every session not collected yet; returns everything delivered. */
    synchronized List<DeviceActivities> stop() {
        List<DeviceActivities> all = new ArrayList<>();
        for (Entry e : entries) {
            collect(e);
            if (e.collected != null) {
                all.add(e.collected);
            }
        }
        return all;
    }

    /** Collects a leaving source's session now, keeping what it delivered; notes the departure. */
    synchronized void detach(DeviceActivitySource leaving) {
        for (Entry e : entries) {
            if (e.source == leaving && e.collected == null) {
                collect(e);
                metadata.put("vantage.device." + e.type + ".left", "the device bundle left while recording;"
                        + " its activity up to then is kept");
            }
        }
    }

    private void collect(Entry e) {
        if (e.collected != null) {
            return;
        }
        try {
            e.session.stop();
            DeviceActivities d = e.session.collect();
            e.collected = d;
            d.metadata().forEach((k, v) -> metadata.put("vantage.device." + e.type + "." + k, v));
            if (!d.errors().isEmpty()) {
                metadata.put("vantage.device." + e.type + ".errors", String.join("; ", d.errors()));
            }
        } catch (RuntimeException | LinkageError x) {
            e.collected = new DeviceActivities(List.of(), List.of(), Map.of(), List.of(), 0);
            fail(e.type, "failed to stop or hand over its activity", x);
        }
    }

    private void fail(String type, String what, Throwable error) {
        String message = what + ": " + error;
        metadata.put("vantage.device." + type + ".failure", message);
        // one line: a device that failed is a fact of this profile, not a bug here (its stack only at DEBUG)
        LOG.log(Level.WARNING, "device " + type + " " + message + "; the host profile goes on");
        LOG.log(Level.DEBUG, "device " + type + " " + what, error);
    }
}
