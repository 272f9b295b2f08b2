package dev.vantage.profiler.core.internal;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import org.osgi.framework.Bundle;
import org.osgi.framework.ServiceReference;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.api.ExporterInfo;
import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.api.ProfileOptions;
import dev.vantage.profiler.api.Profiler;
import dev.vantage.profiler.dispatch.Dispatch;
import dev.vantage.profiler.dispatch.DispatchHook;
import dev.vantage.profiler.memory.MemoryEvents;
import dev.vantage.profiler.spi.DeviceActivitySource;
import dev.vantage.profiler.spi.MemoryAllocator;
import dev.vantage.profiler.spi.TraceExporter;
import dev.vantage.profiler.spi.ViewExporter;
import dev.vantage.profiler.trace.Trace;

/**
 * The profiler service.
 *
 * <p>Design: binds dispatch hooks, device activity sources and exporters as dynamic whiteboards (a bundle may
 * come or go at any time, also while a profile records) and owns the {@link Dispatch} fast path. It publishes only
 * hooks that have work: the registered hooks, plus the recorder of the profile's window while one records. With no
 * hook registered and nothing recording the fast path holds {@code null}, so dispatch costs one field read and a
 * branch.
 *
 * <p>Concurrency: at most one profile runs at a time; starting, publishing and ending are serialised on this
 * object. Hook failures are counted per hook class, reported once in the log and in each trace's metadata.
 */
@Component(service = Profiler.class, immediate = true)
@Designate(ocd = ProfilerComponent.Config.class)
public class ProfilerComponent implements Profiler {

    private static final System.Logger LOG = System.getLogger("dev.vantage.profiler.core");
    static final long DEFAULT_MAX_EVENTS = 32_000_000L;

    /** Configuration of the profiler core (PID {@code dev.vantage.profiler.core.internal.ProfilerComponent}). */
    @ObjectClassDefinition(name = "Vantage profiler core")
    public @interface Config {
        /** The most events one recording window keeps over all threads; further events are dropped and counted. */
        @AttributeDefinition(description = "Most events one recording window keeps; further events are dropped and"
                + " counted")
        long maxEvents() default DEFAULT_MAX_EVENTS;
    }

    private final List<DispatchHook> hooks = new CopyOnWriteArrayList<>();
    /** The installed exporters, through which finished cycles export. */
    private final Exporters outputs = new Exporters();
    private final List<DeviceActivitySource> sources = new CopyOnWriteArrayList<>();
    private final Map<String, AtomicLong> hookFailures = new ConcurrentHashMap<>();
    private final List<MemoryAllocator> allocators = new CopyOnWriteArrayList<>();
    private Object dispatchToken;
    private Object memoryToken;
    private volatile long maxEvents;
    private ProfileSession active;
    private Recorder recorder;
    /** The memory sink of the running profile when it records memory, else null. */
    private LiveBlocks liveBlocks;

    /**
     * Claims the dispatch fast path. A configuration value that is not valid is reported in one log line naming
     * the value and the file it came from, and the default is used: a typo in a {@code .cfg} file must not take
     * the profiler away.
     */
    @Activate
    synchronized void activate(Config config, Map<String, Object> properties) {
        maxEvents = validMaxEvents(config, properties);
        dispatchToken = Dispatch.claim(this::hookFailed);
        memoryToken = MemoryEvents.claim();
        republish();
    }

    /** Applies a new configuration without restarting: the new limit holds from the next window on. */
    @Modified
    synchronized void modified(Config config, Map<String, Object> properties) {
        maxEvents = validMaxEvents(config, properties);
    }

    static long validMaxEvents(Config config, Map<String, Object> properties) {
        try {
            long value = config.maxEvents();
            if (value >= 0) {
                return value;
            }
        } catch (RuntimeException e) {
            // the configured text is not a number; reported below
        }
        Object source = properties.getOrDefault("felix.fileinstall.filename", "the configuration");
        LOG.log(Level.ERROR, source + ": maxEvents='" + properties.get("maxEvents")
                + "' is not a whole number of 0 or more; using " + DEFAULT_MAX_EVENTS);
        return DEFAULT_MAX_EVENTS;
    }

    /** Stops a running profile (its events are kept) and releases the fast path. */
    @Deactivate
    void deactivate() {
        ProfileSession running;
        synchronized (this) {
            running = active;
        }
        if (running != null) {
            running.addMetadata("vantage.warning", "the profiler core stopped while this profile was running");
            running.stop();
        }
        synchronized (this) {
            Dispatch.release(dispatchToken);
            dispatchToken = null;
            MemoryEvents.release(memoryToken);
            memoryToken = null;
        }
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addHook(DispatchHook hook) {
        hooks.add(hook);
        republish();
    }

    void removeHook(DispatchHook hook) {
        hooks.remove(hook);
        republish();
        noteDeparture("vantage.hook_left." + hook.getClass().getName(),
                "the hook's bundle left while this profile ran; ops after that went unobserved by it");
    }

    /** Notes in the running profile's metadata that a plugin left while it ran; what it delivered is kept. */
    private void noteDeparture(String key, String note) {
        ProfileSession running;
        synchronized (this) {
            running = active;
        }
        if (running != null) {
            running.addMetadata(key, note);
        }
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addExporter(TraceExporter exporter, ServiceReference<TraceExporter> ref) {
        Bundle bundle = ref.getBundle();
        outputs.add(exporter, bundle == null ? "?" : bundle.getSymbolicName(),
                bundle == null ? "?" : bundle.getVersion().toString());
    }

    void removeExporter(TraceExporter exporter) {
        outputs.remove(exporter);
    }

    /** Binds the exporter of the views that are not traces; optional, so a profile runs without it. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY, unbind = "removeViews")
    void setViews(ViewExporter exporter) {
        outputs.views(exporter);
    }

    void removeViews(ViewExporter exporter) {
        outputs.removeViews(exporter);
    }

    /** The installed exporters: what a finished cycle exports through. */
    Exporters outputs() {
        return outputs;
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addSource(DeviceActivitySource source) {
        sources.add(source);
    }

    void removeSource(DeviceActivitySource source) {
        ProfileSession running;
        synchronized (this) {
            running = active;
        }
        if (running != null) {
            running.deviceLeaving(source);
        }
        sources.remove(source);
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addAllocator(MemoryAllocator allocator) {
        allocators.add(allocator);
    }

    void removeAllocator(MemoryAllocator allocator) {
        allocators.remove(allocator);
        String device;
        try {
            device = allocator.device();
        } catch (RuntimeException e) {
            device = allocator.getClass().getName();
        }
        noteDeparture("vantage.allocator." + device + ".left",
                "the allocator's bundle left while this profile ran; its events up to then are kept");
    }

    @Override
    public Profile start(ProfileOptions options) {
        Objects.requireNonNull(options, "options");
        ProfileSession session;
        synchronized (this) {
            if (dispatchToken == null) {
                throw new IllegalStateException("the profiler core is not active");
            }
            Set<Activity> available = availableActivities();
            for (Activity a : options.activities()) {
                if (!available.contains(a)) {
                    throw new IllegalArgumentException("activity " + a + " is not available; available: "
                            + available);
                }
            }
            if (active != null) {
                throw new IllegalStateException("a profile is already running; stop it before starting another");
            }
            hookFailures.clear();
            session = new ProfileSession(this, options, options.maxEvents() > 0 ? options.maxEvents() : maxEvents);
            active = session;
            if (options.activities().contains(Activity.MEM)) {
                // for the whole profile, so that a window knows the categories of what was allocated before it
                liveBlocks = new LiveBlocks();
                MemoryEvents.publish(memoryToken, liveBlocks);
            }
        }
        session.begin();
        return session;
    }

    /**
     * Called by the running profile when its recorder starts ({@code recorder} set) or stops (null); with
     * {@code memory}, the recorder also receives allocator events.
     */
    synchronized void recording(ProfileSession session, Recorder r, boolean memory) {
        if (active == session) {
            recorder = r;
            republish();
            LiveBlocks live = liveBlocks;
            if (live != null && memory && r != null) {
                r.preexisting(live.startWindow(r));
            } else if (live != null) {
                live.stopWindow();
            }
        }
    }

    /** Called by a profile when it stopped. */
    synchronized void ended(ProfileSession session) {
        if (active == session) {
            active = null;
            recorder = null;
            liveBlocks = null;
            republish();
            MemoryEvents.publish(memoryToken, null);
        }
    }

    List<DeviceActivitySource> deviceSources() {
        return List.copyOf(sources);
    }

    Map<String, AtomicLong> hookFailures() {
        return Map.copyOf(hookFailures);
    }

    private synchronized void republish() {
        if (dispatchToken == null) {
            return;
        }
        List<DispatchHook> list = new ArrayList<>(hooks);
        if (recorder != null) {
            list.add(recorder);
        }
        Dispatch.publish(dispatchToken, list.toArray(new DispatchHook[0]));
    }

    private void hookFailed(DispatchHook hook, Throwable error) {
        String name = hook.getClass().getName();
        AtomicLong count = hookFailures.computeIfAbsent(name, k -> new AtomicLong());
        if (count.getAndIncrement() == 0) {
            LOG.log(Level.WARNING, "dispatch hook " + name + " threw; the op went on and further failures of this"
                    + " hook are counted in the trace metadata", error);
        }
    }

    /** CPU always; MEM when an allocator is installed; the activity of each device source. */
    @Override
    public Set<Activity> availableActivities() {
        Set<Activity> available = new TreeSet<>();
        available.add(Activity.CPU);
        if (!allocators.isEmpty()) {
            available.add(Activity.MEM);
        }
        available.addAll(deviceActivities().keySet());
        return available;
    }

    @Override
    public Map<Activity, String> deviceActivities() {
        Map<Activity, String> devices = new TreeMap<>();
        for (DeviceActivitySource s : sources) {
            try {
                devices.put(s.activity(), s.deviceType());
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "device source " + s.getClass().getName() + " failed to name its activity", e);
            }
        }
        return devices;
    }

    @Override
    public Set<String> exporterFormats() {
        return outputs.formats();
    }

    @Override
    public List<ExporterInfo> exporters() {
        return outputs.infos();
    }

    @Override
    public Path defaultTarget(String format, Path directory, String baseName) {
        return outputs.exporter(format).defaultTarget(directory, baseName);
    }

    @Override
    public Path defaultTarget(String format, Path directory, String baseName, int cycle) {
        return outputs.exporter(format).defaultTarget(directory, baseName, cycle);
    }

    @Override
    public void export(Trace trace, String format, Path target) throws IOException {
        outputs.export(trace, format, target);
    }

    String processName() {
        return ProcessHandle.current().info().command()
                .map(c -> Path.of(c).getFileName().toString())
                .orElse("java");
    }
}
