package dev.vantage.profiler.core.internal;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.api.CycleSchedule;
import dev.vantage.profiler.api.EventAverage;
import dev.vantage.profiler.api.KeyAverages;
import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.api.ProfileOptions;
import dev.vantage.profiler.api.ProfileState;
import dev.vantage.profiler.api.ProfilerAction;
import dev.vantage.profiler.api.ProfilerEvent;
import dev.vantage.profiler.api.Schedule;
import dev.vantage.profiler.api.StackMetric;
import dev.vantage.profiler.api.TraceReadyHandler;
import dev.vantage.profiler.spi.DeviceActivities;
import dev.vantage.profiler.spi.DeviceActivitySource;
import dev.vantage.profiler.trace.Trace;
import dev.vantage.profiler.core.internal.Recorder.ThreadBuffer;

/**
 * One profile and its schedule.
 *
 * <p>Lifecycle: RECORDING from start until {@link #stop()}, then STOPPED. At each step the schedule's action
 * changes and the transition runs torch's steps ({@code reference: torch.profiler}'s {@code _transit_action}):
 * prepare (configure device sessions), start (publish a new recorder), stop (unpublish and freeze the window as a
 * {@link Cycle}), and trace-ready (hand the cycle to the handlers). Incorrect transitions are warned about in the
 * log and the trace metadata, as torch does. {@code stop()} and {@code step()} hand buffers over and never
 * process them; a handler that asks for events pays for them.
 *
 * <p>Concurrency: step, stop and the metadata are serialised on this object. The recorder itself is lock-free.
 */
final class ProfileSession implements Profile {

    private static final System.Logger LOG = System.getLogger("dev.vantage.profiler.core");
    private static final Schedule RECORD_EVERY_STEP = step -> ProfilerAction.RECORD;

    private final ProfilerComponent owner;
    private final ProfileOptions options;
    private final Schedule schedule;
    /** The time of the step boundary or stop being handled, where a recording window that stops ends. */
    private long boundaryNanos;
    private final boolean recordSteps;
    private final long maxEvents;
    private final long epochOffsetNanos;
    private final Map<String, String> metadata = new TreeMap<>();
    private final List<String> warnings = new ArrayList<>();
    private ProfileState state = ProfileState.RECORDING;
    private long step;
    private ProfilerAction action;
    private long[] stepStarts = new long[16];
    private DeviceSessions prepared;
    private Window window;
    private int delivered;
    private CycleResult last;

    /** The recording window in progress. */
    private final class Window {
        final ChunkPool pool;
        final Recorder recorder;
        final DeviceSessions devices;
        final long startNanos;
        final List<Cycle.StepSpan> steps = new ArrayList<>();
        long openStep = -1;
        long openThread;
        long openStart;

        Window(DeviceSessions devices) {
            this.devices = devices;
            this.pool = new ChunkPool(ThreadBuffer.CHUNK_EVENTS, maxEvents);
            this.recorder = new Recorder(pool, options.recordShapes(), options.withFlops(),
                    options.withStack() ? new StackTable() : null, devices.sessions());
            this.startNanos = System.nanoTime();
        }
    }

    /**
     * What turns a {@code nanoTime} into epoch nanoseconds: the wall clock read between two {@code nanoTime} reads,
     * the tightest of a few tries, taken at their middle. A single pair of reads can be microseconds off (the first
     * {@code Instant.now()} of a process loads classes between the two), and a device whose own clock is the wall
     * clock (ONNX Runtime's profiles) is converted through this offset: it must be good to well under a
     * microsecond.
     */
    static long epochOffset() {
        long best = Long.MAX_VALUE;
        long offset = 0;
        for (int i = 0; i < 9; i++) {
            long before = System.nanoTime();
            Instant wall = Instant.now();
            long after = System.nanoTime();
            if (after - before < best) {
                best = after - before;
                offset = wall.getEpochSecond() * 1_000_000_000L + wall.getNano() - (before + (after - before) / 2);
            }
        }
        return offset;
    }

    ProfileSession(ProfilerComponent owner, ProfileOptions options, long maxEvents) {
        this.owner = owner;
        this.options = options;
        this.schedule = options.schedule() == null ? RECORD_EVERY_STEP : options.schedule();
        this.recordSteps = options.schedule() != null;
        this.maxEvents = maxEvents;
        this.epochOffsetNanos = epochOffset();
        long now = System.nanoTime();
        stepStarts[0] = now;
        if (options.schedule() instanceof CycleSchedule c && c.warmupSteps() == 0) {
            warn("Profiler won't be using warmup, this can skew profiler results");
        }
    }

    /** Takes the action of step 0; called once, right after construction. */
    synchronized void begin() {
        action = action(0);
        transit(ProfilerAction.NONE, action);
        openStep();
    }

    private ProfilerAction action(long s) {
        ProfilerAction a = schedule.action(s);
        if (a == null) {
            throw new IllegalStateException("the schedule returned no action for step " + s);
        }
        return a;
    }

    @Override
    public synchronized ProfileState state() {
        return state;
    }

    @Override
    public synchronized long stepNumber() {
        return step;
    }

    @Override
    public synchronized ProfilerAction currentAction() {
        return action;
    }

    @Override
    public synchronized void addMetadata(String key, String value) {
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException("metadata key must not be empty");
        }
        metadata.put(key, Objects.requireNonNull(value, "value"));
    }

    @Override
    public synchronized void step() {
        if (state != ProfileState.RECORDING) {
            throw new IllegalStateException("step() on a profile that is " + state);
        }
        long now = System.nanoTime();
        closeStep(now);
        boundaryNanos = now;
        ProfilerAction previous = action;
        step++;
        if (step == stepStarts.length) {
            stepStarts = Arrays.copyOf(stepStarts, stepStarts.length * 2);
        }
        stepStarts[(int) step] = now;
        action = action(step);
        transit(previous, action);
        openStep();
    }

    @Override
    public synchronized void stop() {
        if (state == ProfileState.STOPPED) {
            return;
        }
        try {
            long now = System.nanoTime();
            closeStep(now);
            boundaryNanos = now;
            switch (action) {
                case WARMUP -> {
                    startTrace();
                    stopTrace();
                }
                case RECORD, RECORD_AND_SAVE -> traceReady(stopTrace());
                case NONE -> {
                }
            }
        } finally {
            // stopped even when the last cycle failed (the heap ran out analysing it): stopping again, as a
            // deactivating core does, must not find a half-stopped window
            state = ProfileState.STOPPED;
            owner.ended(this);
        }
    }

    @Override
    public void close() {
        stop();
    }

    /** torch's transition table: which of prepare, start, stop and trace-ready run between two actions. */
    private void transit(ProfilerAction from, ProfilerAction to) {
        switch (from) {
            case NONE -> {
                if (to != ProfilerAction.NONE) {
                    prepare();
                }
                if (to == ProfilerAction.RECORD || to == ProfilerAction.RECORD_AND_SAVE) {
                    startTrace();
                }
            }
            case WARMUP -> {
                if (to == ProfilerAction.NONE) {
                    warn("Incorrect schedule: WARMUP followed by NONE");
                    startTrace();
                    stopTrace();
                } else if (to != ProfilerAction.WARMUP) {
                    startTrace();
                }
            }
            case RECORD -> {
                if (to == ProfilerAction.NONE || to == ProfilerAction.WARMUP) {
                    warn("Incorrect schedule: RECORD followed by " + to);
                    stopTrace();
                }
            }
            case RECORD_AND_SAVE -> {
                traceReady(stopTrace());
                if (to != ProfilerAction.NONE) {
                    prepare();
                }
                if (to == ProfilerAction.RECORD || to == ProfilerAction.RECORD_AND_SAVE) {
                    startTrace();
                }
            }
        }
    }

    private void prepare() {
        if (prepared == null) {
            prepared = DeviceSessions.configure(owner.deviceSources(), options, metadata);
        }
    }

    private void startTrace() {
        prepare();
        DeviceSessions devices = prepared;
        prepared = null;
        devices.start();
        window = new Window(devices);
        owner.recording(this, window.recorder, options.activities().contains(Activity.MEM));
    }

    private Cycle stopTrace() {
        Window w = window;
        window = null;
        owner.recording(this, null, false);
        // the step boundary's time: the last step's annotation and the window end together
        long stopNanos = boundaryNanos;
        w.pool.close();
        w.recorder.forgetCurrentThread();
        List<DeviceActivities> devices = w.devices.stop();
        Map<String, String> m = new TreeMap<>(metadata);
        if (options.recordShapes()) {
            m.put("record_shapes", "1");
        }
        if (options.withStack()) {
            m.put("with_stack", "1");
        }
        if (options.withFlops()) {
            m.put("with_flops", "1");
        }
        if (options.activities().contains(Activity.MEM)) {
            m.put("profile_memory", "1");
            lateFrees(w.recorder.lateFrees(), m);
        }
        m.put("vantage.max_events", Long.toString(maxEvents));
        if (w.pool.inlineAllocations() > 0) {
            m.put("vantage.inline_chunk_allocations", Long.toString(w.pool.inlineAllocations()));
        }
        if (w.recorder.sessionFailures() > 0) {
            m.put("vantage.device_correlation_failures", Long.toString(w.recorder.sessionFailures()));
        }
        owner.hookFailures().forEach((hook, count) -> m.put("vantage.hook_failures." + hook, count.toString()));
        if (!warnings.isEmpty()) {
            m.put("vantage.warnings", String.join("; ", warnings));
        }
        return new Cycle(0, options, w.recorder.snapshot(stopNanos), List.copyOf(w.steps),
                Arrays.copyOf(stepStarts, (int) step + 1), w.startNanos, stopNanos, epochOffsetNanos, devices, m,
                owner.processName(), w.recorder.stacks(), w.recorder.recategorized(),
                w.recorder.preexisting(), w.recorder.hostArgs());
    }

    /**
     * Names in the metadata the blocks the garbage collector freed in the window because nobody released them (a
     * tensor never closed): {@code vantage.memory.late_frees} counts them (0 when every block was released by its
     * owner), and per device, {@code vantage.memory.late_frees.<device>} says how many bytes and what allocated them,
     * most first: {@code 3 blocks, 1536 bytes: aten::mm ACTIVATION x2, aten::relu ACTIVATION x1}.
     */
    static void lateFrees(List<Recorder.LateFree> frees, Map<String, String> metadata) {
        metadata.put("vantage.memory.late_frees", Integer.toString(frees.size()));
        Map<String, List<Recorder.LateFree>> byDevice = new TreeMap<>();
        for (Recorder.LateFree f : frees) {
            byDevice.computeIfAbsent(f.device(), d -> new ArrayList<>()).add(f);
        }
        byDevice.forEach((device, list) -> {
            long bytes = 0;
            Map<String, Integer> what = new java.util.HashMap<>();
            for (Recorder.LateFree f : list) {
                bytes += f.bytes();
                String name = (f.allocatedBy().isEmpty() ? "(no op)" : f.allocatedBy()) + " "
                        + f.category().torchName();
                what.merge(name, 1, Integer::sum);
            }
            StringBuilder text = new StringBuilder().append(list.size()).append(list.size() == 1 ? " block, "
                    : " blocks, ").append(bytes).append(" bytes:");
            what.entrySet().stream()
                    .sorted(Map.Entry.<String, Integer>comparingByValue().reversed()
                            .thenComparing(Map.Entry.comparingByKey()))
                    .forEach(e -> text.append(' ').append(e.getKey()).append(" x").append(e.getValue()).append(','));
            text.setLength(text.length() - 1);
            metadata.put("vantage.memory.late_frees." + device, text.toString());
        });
    }

    private void traceReady(Cycle window) {
        Cycle cycle = window.numbered(++delivered);
        CycleResult result = new CycleResult(cycle, owner.outputs());
        last = result;
        for (TraceReadyHandler handler : options.handlers()) {
            try {
                handler.onTraceReady(result);
            } catch (Exception | LinkageError e) {
                String message = "trace-ready handler " + handler.getClass().getName() + " failed on cycle "
                        + cycle.number() + ": " + e;
                warnings.add(message);
                LOG.log(Level.WARNING, message + "; the profile goes on", e);
            }
        }
    }

    /** Opens the annotation of the current step when a window records and the schedule asks for steps. */
    private void openStep() {
        if (recordSteps && window != null) {
            window.openStep = step;
            window.openThread = Thread.currentThread().getId();
            window.openStart = System.nanoTime();
        }
    }

    private void closeStep(long now) {
        if (window != null && window.openStep >= 0) {
            window.steps.add(new Cycle.StepSpan(window.openStep, window.openThread, window.openStart, now));
            window.openStep = -1;
        }
    }

    private void warn(String message) {
        warnings.add(message);
        LOG.log(Level.WARNING, message);
    }

    /** A device bundle is leaving: keep what its session delivered. */
    synchronized void deviceLeaving(DeviceActivitySource source) {
        if (window != null) {
            window.devices.detach(source);
        }
        if (prepared != null) {
            prepared.detach(source);
        }
    }

    /** Returns the last delivered cycle; for benchmarks and tests in this package. */
    synchronized CycleResult lastResult() {
        return last;
    }

    private synchronized CycleResult last() {
        if (last == null) {
            throw new IllegalStateException(state == ProfileState.RECORDING
                    ? "the profile is RECORDING and has completed no cycle yet; stop it or wait for a"
                            + " RECORD_AND_SAVE step"
                    : "the profile completed no cycle: its schedule never recorded");
        }
        return last;
    }

    @Override
    public int cycle() {
        return last().cycle();
    }

    @Override
    public List<Long> steps() {
        return last().steps();
    }

    @Override
    public List<ProfilerEvent> events() {
        return last().events();
    }

    @Override
    public KeyAverages keyAverages() {
        return last().keyAverages();
    }

    @Override
    public KeyAverages keyAverages(boolean groupByInputShape, int groupByStackN) {
        return last().keyAverages(groupByInputShape, groupByStackN);
    }

    @Override
    public EventAverage totalAverage() {
        return last().totalAverage();
    }

    @Override
    public Trace trace() {
        return last().trace();
    }

    @Override
    public void exportChromeTrace(Path path) throws IOException {
        last().exportChromeTrace(path);
    }

    @Override
    public void export(String format, Path target) throws IOException {
        last().export(format, target);
    }

    @Override
    public void exportStacks(Path path, StackMetric metric) throws IOException {
        last().exportStacks(path, metric);
    }

    @Override
    public void exportMemoryTimeline(Path path, String device) throws IOException {
        last().exportMemoryTimeline(path, device);
    }
}
