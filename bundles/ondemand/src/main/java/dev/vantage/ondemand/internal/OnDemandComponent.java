package dev.vantage.ondemand.internal;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import javax.management.InstanceAlreadyExistsException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

import dev.vantage.cli.LocalPlatforms;
import dev.vantage.cli.ProfileDirectory;
import dev.vantage.cli.TraceName;
import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.api.CaptureRequest;
import dev.vantage.profiler.api.MemoryAdmin;
import dev.vantage.profiler.api.OnDemandProfiler;
import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.api.ProfileResult;
import dev.vantage.profiler.api.Profiler;
import dev.vantage.profiler.api.ProfilerAction;
import dev.vantage.profiler.api.RunRecord;
import dev.vantage.profiler.api.TableOptions;
import dev.vantage.profiler.spi.RunRegistry;

/**
 * The on-demand profiler: one capture at a time, whichever way it was asked for, and the MBean
 * {@code dev.vantage:type=Profiler} that the launcher's {@code vantage profile <pid>} reaches through the JDK
 * Attach API. A capture waits for its first step boundary when it is an iteration window, or a duration window on
 * a platform that marks steps; it records with a profile of its own (no schedule: the whole window), and when it
 * ends, from the workload's thread at a step boundary or from a timer when the time is up, its traces are written
 * outside the lock so that the served workload does not wait for the export. The paths written are logged.
 *
 * <p>While active it keeps its state in the system property {@value LocalPlatforms.Capture#PROPERTY} ({@code idle},
 * {@code waiting} or {@code recording}; removed when it stops), set under its lock at each change: a client on this
 * machine ({@code vantage board}'s list of platforms) reads it through the Attach API, which opens nothing in the
 * platform, where asking the MBean would start the JDK's management agent and its port.
 */
@Component(service = OnDemandProfiler.class, immediate = true)
public class OnDemandComponent implements OnDemandProfiler {

    private static final System.Logger LOG = System.getLogger("dev.vantage.profiler.ondemand");
    static final String MBEAN_NAME = "dev.vantage:type=Profiler";
    /** How long deactivation waits for a capture the timer is writing. */
    static final long WRITE_WAIT_SECONDS = 30;
    /** A platform whose workload marked a step this recently is taken to mark steps. */
    private static final long STEPPING_NANOS = 5_000_000_000L;

    private enum State { WAITING, RECORDING }

    /** One capture, from start to its files. */
    private static final class Capture {
        final CaptureRequest request;
        final Set<Activity> activities;
        final List<String> exports;
        final Path dir;
        final String name;
        /** The default name's claim in the directory, released once the files are written; null for a given name. */
        final TraceName claim;
        State state = State.WAITING;
        Profile profile;
        long firstStep;
        long stepsRecorded;
        long startNanos;
        long startEpochNanos;
        long endEpochNanos;
        /** The {@code System.nanoTime()} at the end of each recorded step. */
        final List<Long> stepEnds = new ArrayList<>();
        String runId;
        ScheduledFuture<?> timer;

        Capture(CaptureRequest request, Set<Activity> activities, List<String> exports, Path dir, String name,
                TraceName claim) {
            this.request = request;
            this.activities = activities;
            this.exports = exports;
            this.dir = dir;
            this.name = name;
            this.claim = claim;
        }

        /** Releases the name's claim, if any: its files are written, or none will be. */
        void release() {
            if (claim != null) {
                claim.close();
            }
        }

        String window() {
            CaptureRequest r = request;
            if (r.iterations() > 0) {
                return r.iterations() + " steps" + (r.startIteration() > 0 ? " from step " + r.startIteration() : "");
            }
            return r.durationMillis() > 0 ? r.durationMillis() + " ms" : "until stopped";
        }
    }

    @Reference
    private Profiler profiler;

    @Reference
    private RunRegistry registry;

    @Reference
    private MemoryAdmin memory;

    private final AtomicLong steps = new AtomicLong();
    private volatile long lastStepNanos = Long.MIN_VALUE;
    private volatile Capture pending;
    private ProfileResult last;
    private String lastFiles = "no capture has finished yet";
    private ScheduledExecutorService timer;
    private ObjectName mbean;

    /** For DS, which injects the profiler. */
    public OnDemandComponent() {
    }

    /**
     * Over given services, for benchmarks and tests that run without a framework; call {@link #activate()}.
     */
    public OnDemandComponent(Profiler profiler, RunRegistry registry, MemoryAdmin memory) {
        this.profiler = profiler;
        this.registry = registry;
        this.memory = memory;
    }

    /** Starts the timer and registers the MBean. */
    @Activate
    public synchronized void activate() {
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "vantage-ondemand-timer");
            t.setDaemon(true);
            return t;
        });
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName name = new ObjectName(MBEAN_NAME);
            StandardMBean bean = new StandardMBean(new Control(), ProfilerControlMXBean.class, true);
            try {
                server.registerMBean(bean, name);
            } catch (InstanceAlreadyExistsException e) {
                // a previous core instance that went away without unregistering: take its place
                server.unregisterMBean(name);
                server.registerMBean(bean, name);
            }
            mbean = name;
            publish();
        } catch (JMException | RuntimeException e) {
            LOG.log(Level.WARNING, "the on-demand profiler could not register " + MBEAN_NAME + "; attaching will"
                    + " not find it: " + e);
        }
    }

    /**
     * Stops a capture under way (writing what it recorded), the timer and the MBean. A capture whose time was up just
     * before is still being written on the timer's thread: that write is waited for, at most
     * {@value #WRITE_WAIT_SECONDS} s, so that a platform stopping as its process exits does not lose its files.
     */
    @Deactivate
    public void deactivate() {
        Capture c;
        synchronized (this) {
            c = pending;
        }
        if (c != null) {
            try {
                LOG.log(Level.INFO, "the profiler core is stopping: " + stop());
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "the capture running when the profiler core stopped was lost: " + e);
            }
        }
        synchronized (this) {
            if (mbean != null) {
                try {
                    ManagementFactory.getPlatformMBeanServer().unregisterMBean(mbean);
                } catch (JMException e) {
                    LOG.log(Level.DEBUG, "unregistering " + MBEAN_NAME + " failed: " + e);
                }
                mbean = null;
            }
            System.clearProperty(LocalPlatforms.Capture.PROPERTY);
            timer.shutdown();
        }
        try {
            // outside the lock: the write takes it to note its files
            timer.awaitTermination(WRITE_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        timer.shutdownNow();
    }

    @Override
    public synchronized String start(CaptureRequest request) {
        Capture running = pending;
        if (running != null) {
            throw new IllegalStateException("a capture is already " + running.state.name().toLowerCase(Locale.ROOT)
                    + " (" + running.window() + ", " + running.request.trigger() + " by "
                    + running.request.requestedBy() + "); stop it first");
        }
        Set<Activity> activities = activities(request);
        List<String> exports = exports(request);
        if (request.name() != null && (request.name().isEmpty() || request.name().contains("/")
                || request.name().contains("\\") || request.name().contains(".."))) {
            throw new IllegalArgumentException("a capture's name is a file name without folders, not '"
                    + request.name() + "'");
        }
        Path dir = request.dir() != null ? request.dir() : defaultDir();
        // checked before anything starts: a capture whose traces cannot be written is refused to the caller now,
        // not found out at its end, when the caller is gone
        try {
            ProfileDirectory.check(dir);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the traces' directory " + e.getMessage());
        }
        TraceName claim = null;
        String name = request.name();
        if (name == null) {
            // two captures started in one second would otherwise share the default name and one lose its files
            try {
                claim = TraceName.claim(dir, "ondemand-" + ProcessHandle.current().pid() + "-"
                        + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
            } catch (IOException e) {
                throw new IllegalArgumentException("the traces' directory " + dir + ": cannot claim a name there ("
                        + e.getMessage() + ")");
            }
            name = claim.name();
        }
        Capture c = new Capture(request, activities, exports, dir, name, claim);
        boolean stepping = System.nanoTime() - lastStepNanos < STEPPING_NANOS && lastStepNanos != Long.MIN_VALUE;
        pending = c;
        if (request.iterations() == 0 && !stepping) {
            try {
                begin(c);
            } catch (RuntimeException e) {
                drop(c);
                throw e;
            }
        }
        publish();
        List<String> targets = new ArrayList<>();
        for (String f : exports) {
            targets.add(profiler.defaultTarget(f, dir, name).toString());
        }
        return "capture " + (c.state == State.RECORDING ? "recording" : "waiting for the next step") + ": "
                + c.window() + " of " + activities + ", " + request.trigger() + " by " + request.requestedBy()
                + "\ntraces will go to " + String.join(", ", targets);
    }

    private Set<Activity> activities(CaptureRequest request) {
        Set<Activity> available = profiler.availableActivities();
        if (request.activities().isEmpty()) {
            Set<Activity> all = new TreeSet<>();
            all.add(Activity.CPU);
            all.addAll(profiler.deviceActivities().keySet());
            return all;
        }
        for (Activity a : request.activities()) {
            if (!available.contains(a)) {
                throw new IllegalArgumentException("activity " + a + " cannot be recorded here; available: "
                        + available);
            }
        }
        return new TreeSet<>(request.activities());
    }

    private List<String> exports(CaptureRequest request) {
        List<String> wanted = request.exports().isEmpty() ? List.of("chrome") : request.exports();
        Set<String> installed = profiler.exporterFormats();
        for (String f : wanted) {
            if (!installed.contains(f)) {
                throw new IllegalArgumentException("no exporter writes " + f + "; installed: " + installed);
            }
        }
        return List.copyOf(new LinkedHashSet<>(wanted));
    }

    /** The platform's profile directory: as {@code run --profile-dir} defaults, from the platform's environment. */
    private static Path defaultDir() {
        return ProfileDirectory.resolve(null, System.getenv());
    }

    /** Starts recording; under the lock. */
    private void begin(Capture c) {
        // a schedule that records every step, so that each step is a ProfilerStep#N span, with no warm-up warning
        c.profile = profiler.profile().activities(c.activities).recordShapes(true)
                .schedule(step -> ProfilerAction.RECORD).start();
        c.profile.addMetadata("vantage.trigger", c.request.trigger());
        c.profile.addMetadata("vantage.trigger.requested_by", c.request.requestedBy());
        c.profile.addMetadata("vantage.trigger.window", c.window());
        c.profile.addMetadata("vantage.trigger.first_step", Long.toString(steps.get() + 1));
        // the run registry's id for this capture, in its traces too (readers join on it)
        c.runId = RunRecord.newId();
        c.profile.addMetadata("vantage.run_id", c.runId);
        c.startEpochNanos = epochNanos();
        c.state = State.RECORDING;
        c.firstStep = steps.get() + 1;
        c.startNanos = System.nanoTime();
        if (c.request.durationMillis() > 0) {
            c.timer = timer.schedule(() -> timeUp(c), c.request.durationMillis(), TimeUnit.MILLISECONDS);
        }
        publish();
    }

    private void timeUp(Capture c) {
        Capture ended;
        synchronized (this) {
            if (pending != c) {
                return;
            }
            ended = end(c);
        }
        write(ended);
    }

    @Override
    public void step() {
        long n = steps.incrementAndGet();
        lastStepNanos = System.nanoTime();
        Capture c = pending;
        if (c == null) {
            return;
        }
        Capture ended = null;
        synchronized (this) {
            if (pending != c) {
                return;
            }
            if (c.state == State.WAITING) {
                if (c.request.startIteration() == 0 || n + 1 >= c.request.startIteration()) {
                    try {
                        begin(c);
                    } catch (RuntimeException e) {
                        drop(c);
                        LOG.log(Level.WARNING, "the on-demand capture by " + c.request.requestedBy()
                                + " could not start: " + e.getMessage());
                    }
                }
            } else {
                c.stepsRecorded++;
                c.stepEnds.add(System.nanoTime());
                if (c.request.iterations() > 0 && c.stepsRecorded >= c.request.iterations()) {
                    ended = end(c);
                } else {
                    c.profile.step();
                }
            }
        }
        if (ended != null) {
            write(ended);
        }
    }

    /** Stops recording and clears the capture; under the lock. The export happens after, outside it. */
    private Capture end(Capture c) {
        pending = null;
        if (c.timer != null) {
            c.timer.cancel(false);
        }
        c.profile.stop();
        c.endEpochNanos = epochNanos();
        publish();
        return c;
    }

    /** Clears a capture that never recorded (cancelled, or failed to start) and releases it; under the lock. */
    private void drop(Capture c) {
        pending = null;
        c.release();
        publish();
    }

    /** Publishes the state in the system property {@value LocalPlatforms.Capture#PROPERTY}; under the lock. */
    private void publish() {
        Capture c = pending;
        LocalPlatforms.Capture state = c == null ? LocalPlatforms.Capture.IDLE
                : c.state == State.RECORDING ? LocalPlatforms.Capture.RECORDING : LocalPlatforms.Capture.WAITING;
        System.setProperty(LocalPlatforms.Capture.PROPERTY, state.word());
    }

    private static long epochNanos() {
        java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    /** What writing a capture's files came to: the paths (or failures), one per line, and whether any failed. */
    private record Written(String files, boolean failed) {
    }

    /** Writes a stopped capture's traces and logs where; returns the paths, one per line. */
    private Written write(Capture c) {
        try {
            return writeFiles(c);
        } finally {
            c.release();
        }
    }

    private Written writeFiles(Capture c) {
        List<String> lines = new ArrayList<>();
        try {
            c.profile.cycle();
        } catch (IllegalStateException e) {
            String why = "the capture recorded nothing (" + e.getMessage() + ")";
            LOG.log(Level.WARNING, "on-demand capture by " + c.request.requestedBy() + ": " + why);
            synchronized (this) {
                lastFiles = why;
            }
            return new Written(why, false);
        }
        List<RunRecord.Artifact> written = new ArrayList<>();
        boolean failed = false;
        for (String format : c.exports) {
            Path target = profiler.defaultTarget(format, c.dir, c.name);
            try {
                c.profile.export(format, target);
                lines.add(target.toString());
                written.add(new RunRecord.Artifact(target, format));
            } catch (IOException | RuntimeException e) {
                lines.add("failed: " + format + " to " + target + ": " + e.getMessage());
                failed = true;
            }
        }
        // the registry is not one of the capture's files: its line names them
        String recorded;
        boolean unrecorded = false;
        try {
            recorded = "run " + c.runId + " recorded in " + registry.record(c.dir, runRecord(c, written, failed));
        } catch (IOException | RuntimeException e) {
            recorded = "recording run " + c.runId + " failed";
            lines.add("failed: the run registry in " + c.dir + ": " + e.getMessage());
            unrecorded = true;
        }
        String files = String.join("\n", lines);
        LOG.log(failed || unrecorded ? Level.WARNING : Level.INFO, "on-demand capture (" + c.request.trigger()
                + " by " + c.request.requestedBy() + ", " + c.window() + ") written: " + String.join(", ", lines)
                + "; " + recorded);
        synchronized (this) {
            last = c.profile;
            lastFiles = files;
        }
        return new Written(files, failed || unrecorded);
    }

    /**
     * The capture as a run of the registry. Its command line is left empty: the JVM's own can carry secrets in
     * {@code -D} options, and the platform's command is not the capture's.
     */
    private RunRecord runRecord(Capture c, List<RunRecord.Artifact> written, boolean failed) {
        java.util.Map<String, Object> config = new java.util.LinkedHashMap<>();
        config.put("window", c.window());
        config.put("duration_ms", c.request.durationMillis());
        config.put("iterations", c.request.iterations());
        config.put("start_iteration", c.request.startIteration());
        config.put("first_step", c.firstStep);
        config.put("activities", c.activities.stream().map(Activity::name).toList());
        config.put("exporters", c.exports);
        config.put("profile_name", c.name);
        config.put("profile_dir", c.dir.toString());
        config.put("record_shapes", true);
        config.put("requested_by", c.request.requestedBy());
        config.put("process", ProcessHandle.current().info().command().map(p -> Path.of(p).getFileName().toString())
                .orElse("java"));
        List<RunRecord.Device> devices = new ArrayList<>();
        List<String> memoryDevices = memory.devices();
        for (dev.vantage.profiler.trace.TraceDevice d : c.profile.trace().devices()) {
            String name = d.type() + ":" + d.index();
            long capacity = memoryDevices.contains(name) ? memory.memoryCapacity(name) : 0;
            devices.add(new RunRecord.Device(name, d.emulated(), capacity > 0 ? capacity : null));
        }
        if (devices.isEmpty()) {
            devices.add(new RunRecord.Device("cpu", false, null));
        }
        List<RunRecord.Step> steps = new ArrayList<>();
        long previous = c.startNanos;
        for (int i = 0; i < c.stepEnds.size(); i++) {
            long end = c.stepEnds.get(i);
            steps.add(new RunRecord.Step(i + 1, end - previous, java.util.Map.of(), java.util.Map.of()));
            previous = end;
        }
        String job = System.getenv("VANTAGE_JOB_ID");
        return new RunRecord(c.runId, RunRecord.isId(job) ? job : null, null, null, c.request.trigger(),
                failed ? "failed" : "ok", c.startEpochNanos, Math.max(c.startEpochNanos, c.endEpochNanos),
                List.of(), config, devices, steps, written);
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalStateException also when a trace or the registry's line could not be written; the message,
     *     one line, says what was written and what failed
     */
    @Override
    public String stop() {
        Capture ended;
        synchronized (this) {
            Capture c = pending;
            if (c == null) {
                throw new IllegalStateException("no capture is running; " + lastFiles());
            }
            if (c.state == State.WAITING) {
                drop(c);
                return "cancelled the capture waiting for its first step (" + c.window() + ")";
            }
            ended = end(c);
        }
        Written w = write(ended);
        if (w.failed()) {
            throw new IllegalStateException("the capture's files were not all written: " + w.files().replace("\n",
                    "; "));
        }
        return w.files();
    }

    private String lastFiles() {
        return last == null ? "no capture has finished yet" : "the last one wrote: " + lastFiles.replace('\n', ' ');
    }

    @Override
    public synchronized String status() {
        Capture c = pending;
        String now;
        if (c == null) {
            now = "idle";
        } else if (c.state == State.WAITING) {
            now = "waiting for the next step: " + c.window() + ", " + c.request.trigger() + " by "
                    + c.request.requestedBy();
        } else {
            now = "recording for " + (System.nanoTime() - c.startNanos) / 1_000_000 + " ms, " + c.stepsRecorded
                    + " steps: " + c.window() + ", " + c.request.trigger() + " by " + c.request.requestedBy();
        }
        return now + "\nsteps marked: " + steps.get() + "\nlast capture: " + lastFiles.replace("\n", ", ");
    }

    @Override
    public synchronized String table(TableOptions options) {
        if (last == null) {
            throw new IllegalStateException("no capture has finished yet");
        }
        return last.keyAverages(false, 0).table(options);
    }

    /** The MBean: parses its string options into a request. */
    private final class Control implements ProfilerControlMXBean {

        @Override
        public String start(String[] options) {
            // who asked is what the platform saw of the caller; what the client says of itself is labelled so
            return OnDemandComponent.this.start(CaptureConfig.parse(options, Callers.current()));
        }

        @Override
        public String stop() {
            return OnDemandComponent.this.stop();
        }

        @Override
        public String status() {
            return OnDemandComponent.this.status();
        }
    }
}
