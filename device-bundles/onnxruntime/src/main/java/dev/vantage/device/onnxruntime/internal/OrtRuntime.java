package dev.vantage.device.onnxruntime.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtLoggingLevel;
import dev.vantage.device.onnxruntime.AdoptedModel;
import dev.vantage.device.onnxruntime.ForeignModel;
import dev.vantage.device.onnxruntime.OrtProfiling;
import dev.vantage.device.onnxruntime.ProfiledSession;
import dev.vantage.device.onnxruntime.SessionOptionsFactory;
import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.api.MemoryStats;
import dev.vantage.profiler.spi.ActivitySession;
import dev.vantage.profiler.spi.DeviceActivitySource;
import dev.vantage.profiler.spi.MemoryAllocator;
import dev.vantage.trace.engine.read.OrtProfile;

/**
 * ONNX Runtime as a Vantage device ({@code ort}): the {@link OrtProfiling} service sessions are opened through,
 * the activity source of {@code ORT} and the allocator figures of {@code ort:0}.
 *
 * <p>Lifecycle: activation starts nothing but two background threads (ending and reading ONNX Runtime's files);
 * ONNX Runtime's natives load at the first session ({@link #environment}). At most one window records at a time:
 * a second profile asking for {@code ORT} while one records is declined. A profile that starts while no session is
 * open is declined too, so that a run without ONNX Runtime pays nothing for it. Deactivation closes every session
 * still open and stops the threads.
 *
 * <p>Memory: ONNX Runtime reports its allocator's figures only in its profiles, per node; {@link #stats()} gives
 * those of the last converted window, under torch's {@code memory_stats()} names.
 */
@Component(service = {OrtProfiling.class, DeviceActivitySource.class, MemoryAllocator.class})
@Designate(ocd = OrtRuntime.Config.class)
public class OrtRuntime implements OrtProfiling, DeviceActivitySource, MemoryAllocator {

    /** The device type of ONNX Runtime's activity. */
    static final String DEVICE_TYPE = "ort";
    /** The activity a profile asks for to record ONNX Runtime's nodes. */
    static final Activity ORT = Activity.of("ORT");

    /** The component's configuration ({@code dev.vantage.device.onnxruntime.internal.OrtRuntime.cfg}). */
    @ObjectClassDefinition(name = "Vantage ONNX Runtime device")
    @interface Config {
        @AttributeDefinition(description = "Folder ONNX Runtime writes its profiles into; empty for"
                + " <java.io.tmpdir>/vantage-ort-<pid> (also the system property vantage.ort.profileDir)")
        String profileDir() default "";

        @AttributeDefinition(description = "Keep ONNX Runtime's own profile files after conversion; the trace"
                + " metadata names them (also the system property vantage.ort.keepProfiles=true)")
        boolean keepProfiles() default false;

        @AttributeDefinition(description = "Device records a window keeps at most; more are dropped and counted")
        long maxDeviceRecords() default 4_000_000;

        @AttributeDefinition(description = "Runs a model's profiling session takes before it hands over to a fresh"
                + " one, while the model's events per run are unknown (ONNX Runtime stops a session's profile at"
                + " 1,000,000 events)")
        int firstSessionRuns() default ModelTwins.FIRST_TWIN_RUNS;

        @AttributeDefinition(description = "ONNX Runtime events a profiling session records before it hands over"
                + " to a fresh one; at most 900,000 (ONNX Runtime's cap is 1,000,000). Fewer keep ONNX Runtime's"
                + " memory and files smaller in long windows, at the cost of more session set-ups")
        long eventsPerSession() default DEFAULT_EVENTS_PER_SESSION;
    }

    /** The framework property that turns {@link #recordWithoutSessions} on. */
    static final String RECORD_WITHOUT_SESSIONS = "vantage.ort.recordWithoutSessions";

    /** Events a profiling session takes by default: a quarter of ONNX Runtime's cap (about 250 MB of its JSON). */
    static final long DEFAULT_EVENTS_PER_SESSION = 250_000;

    private final Set<ModelTwins> sessions = ConcurrentHashMap.newKeySet();
    /** The sessions opened through {@link #open}, closed at deactivation; adopted models are their owners' to close. */
    private final Set<ProfiledSessionImpl> opened = ConcurrentHashMap.newKeySet();
    private OrtWindow window;
    private long windows;
    private volatile OrtEnvironment environment;
    private ExecutorService background;
    private Path profileDir;
    /** Whether the profile folder is the bundle's own temporary one, removed when empty at deactivation. */
    private boolean ownDir;
    private boolean keepProfiles;
    private long maxActivities;
    private volatile int firstSessionRuns = ModelTwins.FIRST_TWIN_RUNS;
    private volatile long eventsPerSession = DEFAULT_EVENTS_PER_SESSION;
    private final Map<String, Long> figures = new TreeMap<>();
    private volatile boolean recordWithoutSessions;

    /** Activates with the defaults, for use outside OSGi (tests, benchmarks). */
    public static OrtRuntime standalone(Path profileDir, boolean keepProfiles) {
        OrtRuntime r = new OrtRuntime();
        r.start(profileDir, keepProfiles, 4_000_000);
        return r;
    }

    @Activate
    void activate(BundleContext context, Config config) {
        start(Path.of(System.getProperty("java.io.tmpdir")), false, 1);
        recordWithoutSessions(Boolean.parseBoolean(context.getProperty(RECORD_WITHOUT_SESSIONS)));
        modified(config);
    }

    /**
     * Sets whether a profile prepared while no session is open records {@code ORT} all the same, for the sessions
     * that open while it records; by default it declines, so that a run without ONNX Runtime pays nothing for it.
     * The Vantage agent's platform turns it on (framework property {@value #RECORD_WITHOUT_SESSIONS}): an
     * application may create its sessions after a capture started.
     */
    public void recordWithoutSessions(boolean record) {
        recordWithoutSessions = record;
    }

    /**
     * Takes a new configuration without closing a session: it applies to the next window, and the sizes of
     * profiling sessions to the next session made.
     */
    @Modified
    synchronized void modified(Config config) {
        String dir = !config.profileDir().isBlank() ? config.profileDir()
                : System.getProperty("vantage.ort.profileDir", "");
        ownDir = dir.isBlank();
        profileDir = (ownDir ? Path.of(System.getProperty("java.io.tmpdir"), "vantage-ort-"
                + ProcessHandle.current().pid()) : Path.of(dir)).toAbsolutePath();
        keepProfiles = config.keepProfiles() || Boolean.getBoolean("vantage.ort.keepProfiles");
        maxActivities = Math.max(1, config.maxDeviceRecords());
        firstSessionRuns = Math.max(1, config.firstSessionRuns());
        eventsPerSession(config.eventsPerSession());
    }

    /** Sets {@link #eventsPerSession()}, as the configuration does; for tests and benchmarks outside OSGi. */
    public void eventsPerSession(long events) {
        eventsPerSession = Math.max(1, Math.min(events, Conversion.ORT_EVENT_CAP * 9 / 10));
    }

    /** ONNX Runtime events a profiling session may record before it hands over. */
    long eventsPerSession() {
        return eventsPerSession;
    }

    private void start(Path dir, boolean keep, long maxRecords) {
        this.profileDir = dir.toAbsolutePath();
        this.keepProfiles = keep;
        this.maxActivities = Math.max(1, maxRecords);
        AtomicInteger n = new AtomicInteger();
        this.background = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "vantage-ort-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Closes every session still open, forgets the adopted models (their sessions are their owners') and stops the
     * background threads.
     */
    @Deactivate
    public void deactivate() {
        for (ProfiledSessionImpl s : List.copyOf(opened)) {
            try {
                s.close();
            } catch (OrtException | RuntimeException e) {
                System.getLogger("dev.vantage.device.onnxruntime").log(System.Logger.Level.WARNING,
                        "could not close the ONNX Runtime session " + s.name(), e);
            }
        }
        for (ModelTwins adopted : List.copyOf(sessions)) {
            adopted.close();
        }
        background.shutdown();
        synchronized (this) {
            if (ownDir) {
                try {
                    Files.deleteIfExists(profileDir);
                } catch (IOException e) {
                    // profiles kept in it (keepProfiles), or a window still ending: the folder stays
                }
            }
        }
    }

    @Override
    public OrtEnvironment environment() throws OrtException {
        OrtEnvironment env = environment;
        if (env == null) {
            synchronized (this) {
                env = environment;
                if (env == null) {
                    env = OrtEnvironment.getEnvironment(OrtLoggingLevel.ORT_LOGGING_LEVEL_WARNING, "vantage");
                    // ONNX Runtime's telemetry sends nothing from Vantage; its folders and logs are removed
                    env.setTelemetry(false);
                    OrtLeftovers.remove();
                    environment = env;
                }
            }
        }
        return env;
    }

    /** Returns ONNX Runtime's version, as it reports it once loaded. */
    String version() {
        OrtEnvironment env = environment;
        return env == null ? "not loaded" : env.getVersion();
    }

    @Override
    public ProfiledSession open(Path model, SessionOptionsFactory options) throws OrtException {
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(options, "options");
        return opened(new ProfiledSessionImpl(this, new EmbeddedModel(this, String.valueOf(model.getFileName()), model,
                null, options)));
    }

    @Override
    public ProfiledSession open(String name, byte[] model, SessionOptionsFactory options) throws OrtException {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(options, "options");
        return opened(new ProfiledSessionImpl(this, new EmbeddedModel(this, name, null, model, options)));
    }

    @Override
    public AdoptedModel adopt(ForeignModel model) {
        AdoptedModelImpl adopted = new AdoptedModelImpl(this, model);
        joined(adopted.twins());
        return adopted;
    }

    private ProfiledSession opened(ProfiledSessionImpl s) {
        opened.add(s);
        joined(s.twins());
        return s;
    }

    private void joined(ModelTwins twins) {
        OrtWindow w;
        synchronized (this) {
            sessions.add(twins);
            w = window;
        }
        if (w != null) {
            // a model opened while a window records joins it
            w.join(twins);
        }
    }

    /** Forgets a closed model. */
    void closed(ModelTwins s) {
        sessions.remove(s);
    }

    /** Forgets a closed session of the embedded ONNX Runtime. */
    void closed(ProfiledSessionImpl s) {
        opened.remove(s);
    }

    @Override
    public Activity activity() {
        return ORT;
    }

    @Override
    public String deviceType() {
        return DEVICE_TYPE;
    }

    @Override
    public ActivitySession configure(Set<Activity> requested, Map<String, String> config) {
        if (!requested.contains(ORT)) {
            return null;
        }
        OrtWindow w;
        List<ModelTwins> open;
        synchronized (this) {
            if (window != null || sessions.isEmpty() && !recordWithoutSessions) {
                // one window at a time; and none at all without a session to record, unless sessions are expected
                return null;
            }
            w = new OrtWindow(this, ++windows, requested.contains(Activity.MEM),
                    "1".equals(config.get("record_shapes")));
            window = w;
            open = new ArrayList<>(sessions);
        }
        try {
            Files.createDirectories(profileDir);
        } catch (IOException e) {
            synchronized (this) {
                window = null;
            }
            throw new UncheckedIOException("cannot create ONNX Runtime's profile folder " + profileDir, e);
        }
        for (ModelTwins s : open) {
            w.join(s);
        }
        return w;
    }

    /** Returns the window that records now, or null. */
    synchronized OrtWindow window() {
        return window;
    }

    /** A window stopped: the next profile may record. */
    synchronized void windowStopped(OrtWindow w) {
        if (window == w) {
            window = null;
        }
    }

    /**
     * Runs a task on the background threads; on the calling thread once they are stopped (the bundle is leaving,
     * and a window still hands its last profiles over).
     */
    <T> Future<T> submit(Callable<T> task) {
        try {
            return background.submit(task);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            java.util.concurrent.FutureTask<T> inline = new java.util.concurrent.FutureTask<>(task);
            inline.run();
            return inline;
        }
    }

    synchronized Path profileDir() {
        return profileDir;
    }

    synchronized boolean keepProfiles() {
        return keepProfiles;
    }

    synchronized long maxActivities() {
        return maxActivities;
    }

    /** Runs of a model's profiling session while its events per run are unknown. */
    int firstSessionRuns() {
        return firstSessionRuns;
    }

    /** Sets {@link #firstSessionRuns()}, as the configuration does; for tests and benchmarks outside OSGi. */
    public void firstSessionRuns(int runs) {
        firstSessionRuns = Math.max(1, runs);
    }

    /** Keeps ONNX Runtime's allocator figures from a converted window. */
    synchronized void memoryFigures(Conversion.Counts c) {
        if (c.memInUse == OrtProfile.ABSENT) {
            return;
        }
        figures.put("allocated_bytes.all.current", c.memInUse);
        figures.merge("allocated_bytes.all.peak", Math.max(c.memInUse, c.memInUsePeak), Math::max);
        figures.put("reserved_bytes.all.current", Math.max(0, c.memArenaHeld));
        figures.merge("reserved_bytes.all.peak", Math.max(0, c.memArenaHeld), Math::max);
        figures.put("requested_bytes.all.current", Math.max(0, c.memRequestedInUse));
    }

    @Override
    public String device() {
        return DEVICE_TYPE + ":0";
    }

    @Override
    public synchronized MemoryStats stats() {
        return new MemoryStats(device(), figures);
    }

    @Override
    public synchronized void resetPeakStats() {
        Long allocated = figures.get("allocated_bytes.all.current");
        if (allocated != null) {
            figures.put("allocated_bytes.all.peak", allocated);
        }
        Long reserved = figures.get("reserved_bytes.all.current");
        if (reserved != null) {
            figures.put("reserved_bytes.all.peak", reserved);
        }
    }
}
