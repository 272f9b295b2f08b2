package dev.vantage.device.onnxruntime.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

import dev.vantage.device.kit.ClockCalibration;
import dev.vantage.profiler.spi.ActivitySession;
import dev.vantage.profiler.spi.DeviceActivities;
import dev.vantage.profiler.spi.DeviceActivity;
import dev.vantage.profiler.trace.TraceDevice;
import dev.vantage.trace.engine.read.OrtProfile;
import dev.vantage.trace.engine.read.OrtProfileReader;

/**
 * One profile window's session over ONNX Runtime, on Kineto's terms: made at the profile's prepare step
 * ({@link OrtRuntime#configure}), when every open model ({@link ModelTwins}) gets a profiling twin;
 * {@link #start()} samples the clocks and routes runs to the twins; correlation pushes note, on the threads that
 * run models, the {@code ort::run} op each run is recorded under; {@link #stop()} routes runs back to the models'
 * own sessions and samples the clocks again; {@link #collect()} waits for ONNX Runtime's files, reads them and converts
 * them ({@link Conversion}).
 *
 * <p>A window holds only its runs: a twin takes runs only between start and stop, and a run goes to one session
 * as a whole, so windows are cut at run boundaries. Twins the window is done with ({@link #ended}) are ended and
 * read in the background while the window goes on, so a long window with rotations does most of its reading before
 * it stops. Methods other than the correlation calls are called by the core on one thread at a time, except
 * {@link #ended}, {@link #error} and {@link #rotated}, which sessions call from any thread.
 */
final class OrtWindow implements ActivitySession {

    private enum State { CONFIGURED, RECORDING, STOPPED, COLLECTED }

    /** A twin's file, read. */
    private record Read(Twin.Ended ended, OrtProfile events, String failure) {
    }

    private final OrtRuntime runtime;
    private final long id;
    private final boolean memory;
    private final boolean shapes;
    private final List<ModelTwins> sessions = new ArrayList<>();
    private final List<Future<Read>> reads = new ArrayList<>();
    private final List<Future<?>> tasks = new ArrayList<>();
    private final List<String> errors = new ArrayList<>();
    private int twins;
    private int rotations;
    private State state = State.CONFIGURED;
    private ClockCalibration.Sample startSample;
    private ClockCalibration.Sample stopSample;

    OrtWindow(OrtRuntime runtime, long id, boolean memory, boolean shapes) {
        this.runtime = runtime;
        this.id = id;
        this.memory = memory;
        this.shapes = shapes;
    }

    /** Gives a session a twin for this window; routes it at once when the window already records. */
    void join(ModelTwins session) {
        try {
            session.prepare(this);
        } catch (Exception | LinkageError e) {
            error("could not make a profiling session of " + session.name() + ": " + e.getMessage()
                    + "; its runs are not in this window");
            return;
        }
        boolean recording;
        synchronized (this) {
            sessions.add(session);
            recording = state == State.RECORDING;
        }
        if (recording) {
            session.route(this);
        }
    }

    /** The prefix ONNX Runtime names a twin's profile file by: unique per twin, in the runtime's folder. */
    synchronized String profilePrefix(String session) {
        twins++;
        String safe = session.replaceAll("[^A-Za-z0-9._-]", "_");
        return runtime.profileDir().resolve(safe + "-" + ProcessHandle.current().pid() + "-w" + id + "-" + twins)
                .toString();
    }

    @Override
    public void start() {
        List<ModelTwins> now;
        synchronized (this) {
            startSample = ClockCalibration.sample(OrtWindow::epochNanos);
            state = State.RECORDING;
            now = List.copyOf(sessions);
        }
        for (ModelTwins s : now) {
            s.route(this);
        }
    }

    @Override
    public void pushCorrelation(long correlation) {
        // called for every op on every thread while the window records: a slot read and a store (a thread's
        // first push makes its state, a few bytes)
        ThreadState.current().push(correlation);
    }

    @Override
    public void popCorrelation() {
        ThreadState s = ThreadState.ifPresent();
        if (s != null) {
            s.pop();
        }
    }

    @Override
    public void stop() {
        List<ModelTwins> now;
        synchronized (this) {
            if (state == State.STOPPED || state == State.COLLECTED) {
                return;
            }
            now = List.copyOf(sessions);
        }
        for (ModelTwins s : now) {
            s.unroute(this);
        }
        synchronized (this) {
            stopSample = ClockCalibration.sample(OrtWindow::epochNanos);
            if (startSample == null) {
                startSample = stopSample;
            }
            state = State.STOPPED;
        }
        runtime.windowStopped(this);
    }

    /** Takes a retired twin: ends it (ONNX Runtime writes its file) and reads the file, in the background. */
    void ended(Twin twin) {
        Future<Read> read = runtime.submit(() -> {
            Twin.Ended ended;
            try {
                ended = twin.end();
            } catch (Exception | LinkageError e) {
                return new Read(null, null, "ONNX Runtime could not end the profile of " + twin.owner.name() + ": "
                        + e.getMessage());
            }
            try {
                OrtProfile events = OrtProfileReader.read(Path.of(ended.file()));
                long modelRuns = 0;
                for (int i = 0; i < events.size; i++) {
                    modelRuns += events.kind[i] == OrtProfile.MODEL_RUN ? 1 : 0;
                }
                if (modelRuns > 0) {
                    // a first estimate for the twins to come; the conversion gives the exact largest run
                    twin.owner.learnEventsPerRun((events.total + modelRuns - 1) / modelRuns + 1);
                }
                return new Read(ended, events, null);
            } catch (IOException | RuntimeException e) {
                return new Read(ended, null, "could not read ONNX Runtime's profile " + ended.file() + ": "
                        + e.getMessage());
            }
        });
        synchronized (this) {
            reads.add(read);
        }
    }

    /** Runs a task on the runtime's background threads, waited for before the window hands its activity over. */
    void background(Runnable task) {
        Future<?> f = runtime.submit(() -> {
            task.run();
            return null;
        });
        synchronized (this) {
            tasks.add(f);
        }
    }

    /** Notes a problem a user should see in the trace. */
    synchronized void error(String message) {
        errors.add(message);
    }

    /** Notes that a twin handed over to a fresh one. */
    synchronized void rotated() {
        rotations++;
    }

    /** Returns how many times a twin of this window handed over to a fresh one so far. */
    synchronized int rotations() {
        return rotations;
    }

    @Override
    public DeviceActivities collect() {
        stop();
        List<Future<?>> pending;
        synchronized (this) {
            if (state == State.COLLECTED) {
                throw new IllegalStateException("the ONNX Runtime window was collected already");
            }
            pending = new ArrayList<>(tasks);
        }
        // rotations may still be ending twins: wait for them first, then for every read they started
        for (Future<?> f : pending) {
            await(f);
        }
        List<Future<Read>> files;
        synchronized (this) {
            files = new ArrayList<>(reads);
            state = State.COLLECTED;
        }
        ClockCalibration clock = ClockCalibration.fit(startSample, stopSample, 1_000_000_000L);
        List<DeviceActivity> activities = new ArrayList<>();
        Conversion.Counts counts = new Conversion.Counts();
        long flow = 1;
        long room = runtime.maxActivities();
        long runs = 0;
        Set<String> names = new LinkedHashSet<>();
        Set<String> versions = new LinkedHashSet<>();
        List<String> files0 = new ArrayList<>();
        List<String> origins = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        for (Future<Read> f : files) {
            Read r = await(f);
            if (r == null) {
                failures.add("a profile of this window could not be read");
                continue;
            }
            if (r.failure() != null) {
                failures.add(r.failure());
            }
            if (r.ended() == null) {
                continue;
            }
            names.add(r.ended().owner().name());
            versions.add(r.ended().owner().version());
            files0.add(r.ended().file());
            origins.add(Long.toString(r.ended().originEpochNanos()));
            runs += r.ended().runs().stream().filter(Run::inWindow).count();
            if (r.events() != null) {
                int before = activities.size();
                long largestBefore = counts.largestRunEvents;
                counts.largestRunEvents = 0;
                flow = Conversion.convert(r.events(), r.ended().originEpochNanos(), r.ended().runs(), clock, flow,
                        memory, room, activities, counts);
                room -= activities.size() - before;
                r.ended().owner().learnEventsPerRun(counts.largestRunEvents);
                counts.largestRunEvents = Math.max(largestBefore, counts.largestRunEvents);
            }
            if (!runtime.keepProfiles()) {
                try {
                    Files.deleteIfExists(Path.of(r.ended().file()));
                } catch (IOException e) {
                    failures.add("could not delete " + r.ended().file() + ": " + e.getMessage());
                }
            }
        }
        runtime.memoryFigures(counts);
        List<String> allErrors;
        int rotationCount;
        synchronized (this) {
            allErrors = new ArrayList<>(errors);
            rotationCount = rotations;
        }
        allErrors.addAll(failures);
        if (counts.cappedFiles > 0) {
            allErrors.add(counts.cappedFiles + " ONNX Runtime profile(s) reached ONNX Runtime's cap of "
                    + Conversion.ORT_EVENT_CAP + " events; the nodes after it are missing");
        }
        if (counts.dropped > 0) {
            allErrors.add(counts.dropped + " ONNX Runtime events dropped: the window's cap of "
                    + runtime.maxActivities() + " device records was reached");
        }
        String providers = counts.providers.isEmpty() ? "no node recorded" : String.join(", ", counts.providers);
        // the embedded ONNX Runtime's version, or the versions an application's models ran on
        String version = versions.isEmpty() ? runtime.version() : String.join(", ", versions);
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("name", "ONNX Runtime " + version);
        properties.put(TraceDevice.LABEL, providers + ", ONNX Runtime " + version);
        properties.put(TraceDevice.ROW_NAME, "thread");
        properties.put("executionProviders", providers);
        properties.put("runtimeVersion", version);
        List<TraceDevice> devices = activities.isEmpty() ? List.of()
                : List.of(new TraceDevice(OrtRuntime.DEVICE_TYPE, 0, false, properties));
        Map<String, String> metadata = new LinkedHashMap<>();
        metadata.put("emulated", "false");
        metadata.put("runtime", "ONNX Runtime " + version);
        metadata.put("execution_providers", providers);
        metadata.put("sessions", String.join(", ", names));
        metadata.put("runs", Long.toString(runs));
        metadata.put("model_runs", Long.toString(counts.modelRuns));
        metadata.put("node_events", Long.toString(counts.nodes));
        metadata.put("profiling_sessions", Integer.toString(files.size()));
        metadata.put("rotations", Integer.toString(rotationCount));
        metadata.put("clock_error_ns", Long.toString(clock.errorBoundNanos()));
        metadata.put("ort_profiles", files0.isEmpty() ? "none" : runtime.keepProfiles()
                ? String.join(", ", files0) : "deleted after conversion (keep them with keepProfiles)");
        // ONNX Runtime's files give times from the session's profiling start, which only the API tells
        metadata.put("ort_profile_starts_ns", String.join(", ", origins));
        metadata.put("events_not_converted", counts.otherEvents + " (session set-up and executor spans)");
        if (memory) {
            metadata.put("memory_reports", Long.toString(counts.memoryReports));
        }
        // Kineto's out-of-range records: runs a twin took at the window's edges, outside its recorder's window
        metadata.put("out_of_window_records", counts.outsideWindow + (counts.runsOutsideWindow == 0 ? ""
                : " (" + counts.runsOutsideWindow + " runs at the window's edges, with their nodes)"));
        if (counts.unmatchedModelRuns > 0 || counts.unmatchedRuns > 0 || counts.nodesOutsideRuns > 0) {
            metadata.put("unmatched", counts.unmatchedModelRuns + " model runs without their Java call, "
                    + counts.unmatchedRuns + " Java calls without a model run, " + counts.nodesOutsideRuns
                    + " nodes outside every model run");
        }
        return new DeviceActivities(devices, activities, metadata, allErrors, counts.dropped + counts.outsideWindow);
    }

    private static <T> T await(Future<T> f) {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (ExecutionException e) {
            return null;
        }
    }

    /** The wall clock in nanoseconds since the epoch: the clock of ONNX Runtime's profiles. */
    static long epochNanos() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    boolean recordsShapes() {
        return shapes;
    }
}
