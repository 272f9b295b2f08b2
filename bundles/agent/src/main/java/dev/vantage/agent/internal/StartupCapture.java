package dev.vantage.agent.internal;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import dev.vantage.cli.AgentOptions;
import dev.vantage.cli.TraceName;
import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.api.KeyAverages;
import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.api.ProfileBuilder;
import dev.vantage.profiler.api.ProfileResult;
import dev.vantage.profiler.api.Profiler;
import dev.vantage.profiler.api.ProfilerAction;
import dev.vantage.profiler.api.Schedule;
import dev.vantage.profiler.api.SortKey;
import dev.vantage.profiler.api.StackMetric;
import dev.vantage.profiler.api.TableOptions;

/**
 * The capture the agent starts with the application ({@code start=startup}): a profile with the options' schedule
 * (or, with a {@code duration} and no schedule, every step), moved by the application's steps. It ends after
 * {@code duration}, after the schedule's last recorded step, or when the application exits ({@link #end}),
 * whichever comes first, and every completed cycle is written in every case: its traces in the options' formats
 * and its table, on standard error, as {@code vantage run} prints it.
 *
 * <p>Cycles are written on a thread of the capture's own, so that the application's step waits only for the
 * profile's hand-over. A trace that cannot be written (a full disk, an exporter that fails) ends the capture, in
 * one line; the application goes on. Thread-safe.
 */
final class StartupCapture {

    private final Profiler profiler;
    private final AgentOptions options;
    private final PrintStream err;
    private final Set<Activity> activities;
    private final SortKey sortBy;
    private final Path dir;
    private final String name;
    private final TraceName claim;
    private final boolean scheduled;
    private final long lastStep;
    private final ExecutorService writer;
    private final ScheduledExecutorService timer;
    private Profile profile;
    private boolean ended;
    /** A file could not be written: later cycles are not written either. */
    private volatile boolean failed;

    /**
     * Checks what only the platform knows (activities, exporters, the sort key) and claims the traces' name.
     *
     * @throws IllegalArgumentException naming the option and value the platform cannot take
     */
    StartupCapture(Profiler profiler, AgentOptions options, PrintStream err) {
        this.profiler = profiler;
        this.options = options;
        this.err = err;
        this.activities = activities(profiler, options);
        for (String f : options.exports()) {
            if (!profiler.exporterFormats().contains(f)) {
                throw new IllegalArgumentException("export=" + String.join("+", options.exports()) + ": no exporter"
                        + " writes " + f + "; installed: " + String.join(", ", profiler.exporterFormats()));
            }
        }
        try {
            this.sortBy = options.sortBy() == null ? null : SortKey.parse(options.sortBy());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("sort-by=" + options.sortBy() + ": " + e.getMessage());
        }
        this.dir = options.dir();
        if (options.name() != null) {
            this.name = options.name();
            this.claim = null;
        } else {
            try {
                this.claim = TraceName.claim(dir, "agent-" + ProcessHandle.current().pid() + "-"
                        + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
            } catch (IOException e) {
                throw new IllegalArgumentException("dir=" + dir + ": cannot claim a trace name there ("
                        + e.getMessage() + ")");
            }
            this.name = claim.name();
        }
        Map<String, Integer> n = options.schedule();
        this.scheduled = options.scheduleGiven() || options.durationMillis() == 0;
        this.lastStep = scheduled && n.get("repeat") > 0
                ? n.get("skip_first") + (long) n.get("repeat") * (n.get("wait") + n.get("warmup") + n.get("active"))
                : Long.MAX_VALUE;
        this.writer = Executors.newSingleThreadExecutor(daemon("vantage-agent-writer"));
        this.timer = Executors.newSingleThreadScheduledExecutor(daemon("vantage-agent-timer"));
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    private static Set<Activity> activities(Profiler profiler, AgentOptions options) {
        Set<Activity> set = new TreeSet<>();
        if (options.activities().isEmpty()) {
            set.add(Activity.CPU);
            set.addAll(profiler.deviceActivities().keySet());
            return set;
        }
        Set<Activity> available = profiler.availableActivities();
        for (String a : options.activities()) {
            Activity activity;
            try {
                activity = Activity.parse(a);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("activities=" + String.join("+", options.activities()) + ": "
                        + e.getMessage());
            }
            if (!available.contains(activity)) {
                throw new IllegalArgumentException("activities=" + String.join("+", options.activities()) + ": "
                        + activity + " cannot be recorded here; available: " + available);
            }
            set.add(activity);
        }
        return set;
    }

    /** Starts recording, with the metadata that says how the capture came about. */
    synchronized void start() {
        Map<String, Integer> n = options.schedule();
        ProfileBuilder b = profiler.profile().activities(activities).recordShapes(options.recordShapes())
                .withStack(options.withStack()).withFlops(options.withFlops())
                .onTraceReady(cycle -> writer.execute(() -> write(cycle)));
        if (scheduled) {
            b.schedule(Schedule.of(n.get("wait"), n.get("warmup"), n.get("active"), n.get("repeat"),
                    n.get("skip_first")));
        } else {
            b.schedule(step -> ProfilerAction.RECORD);
        }
        if (options.maxEvents() != null) {
            b.maxEvents(options.maxEvents());
        }
        profile = b.start();
        profile.addMetadata("vantage.trigger", "startup");
        profile.addMetadata("vantage.trigger.requested_by", "the agent's options"
                + (options.text().isEmpty() ? "" : " " + options.text()));
        profile.addMetadata("vantage.agent.process", ProcessHandle.current().info().command().orElse("java"));
        if (options.durationMillis() > 0) {
            timer.schedule(() -> end("its duration of " + options.durationMillis() + " ms is over"),
                    options.durationMillis(), TimeUnit.MILLISECONDS);
        }
        if (lastStep == 0) {
            end("its schedule records no step");
        }
    }

    /** The application's step ended: the schedule moves on, and the capture ends after its last recorded step. */
    void step() {
        Profile p;
        synchronized (this) {
            if (ended || profile == null) {
                return;
            }
            p = profile;
        }
        try {
            p.step();
        } catch (IllegalStateException e) {
            return;   // ended by another thread meanwhile
        }
        if (p.stepNumber() >= lastStep) {
            end(null);
        }
    }

    /**
     * Ends the capture: the profile stops (a cycle that was recording is delivered and written); called again, does
     * nothing.
     *
     * @param why what ended it, said in one line; null for the schedule's end, which needs no word
     */
    void end(String why) {
        Profile p = claimEnd();
        if (p == null) {
            return;
        }
        if (why != null) {
            err.println("vantage-agent: the start-up capture ends: " + why);
        }
        p.stop();
        timer.shutdownNow();
        writer.execute(() -> {
            try {
                p.cycle();
            } catch (IllegalStateException e) {
                err.println("vantage-agent: no trace was written: the capture recorded no step (no embed, predict"
                        + " or ONNX Runtime run in the schedule's recorded steps; step=Class#method names others)");
            }
            if (claim != null) {
                claim.close();
            }
        });
        writer.shutdown();
    }

    /** Ends the capture and waits, at most {@code millis}, for its files: the application is exiting. */
    void endAndWait(String why, long millis) {
        end(why);
        try {
            writer.awaitTermination(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Writes a completed cycle's traces and prints its table; a failure ends the capture. */
    private void write(ProfileResult cycle) {
        if (failed) {
            return;
        }
        KeyAverages averages = cycle.keyAverages(false, 0);
        // by total, not self, time: an application's calls (an embed, its ort::run) then come first, above the op
        // types they ran, which is the question a slow request asks
        SortKey order = sortBy != null ? sortBy : averages.deviceType().isEmpty() ? SortKey.CPU_TIME_TOTAL
                : SortKey.DEVICE_TIME_TOTAL;
        err.print(averages.table(new TableOptions(order, options.rowLimit(), options.percentiles(), false)));
        // named <name>-cycle<K> when the schedule can complete more than one cycle, as vantage run names them
        boolean cycles = scheduled && options.schedule().get("repeat") != 1;
        for (String format : options.exports()) {
            Path target = cycles ? profiler.defaultTarget(format, dir, name, cycle.cycle())
                    : profiler.defaultTarget(format, dir, name);
            try {
                cycle.export(format, target);
                err.println("vantage-agent: trace written: " + target);
            } catch (IOException | RuntimeException e) {
                err.println("vantage-agent: writing " + format + " to " + target + " failed (" + e.getMessage()
                        + "); the capture ends, the application goes on");
                endAfterFailure();
                return;
            }
        }
        if (options.withStack()) {
            Path stacks = dir.resolve((cycles ? name + "-cycle" + cycle.cycle() : name) + ".stacks");
            try {
                cycle.exportStacks(stacks, StackMetric.SELF_CPU_TIME_TOTAL);
                err.println("vantage-agent: stacks written: " + stacks);
            } catch (IOException | RuntimeException e) {
                err.println("vantage-agent: writing stacks to " + stacks + " failed (" + e.getMessage() + ")");
            }
        }
    }

    /** Ends the capture from its writer's thread, after a file could not be written. */
    private void endAfterFailure() {
        failed = true;
        Profile p = claimEnd();
        if (p == null) {
            return;
        }
        p.stop();
        timer.shutdownNow();
        writer.shutdown();
    }

    /** Marks the capture ended and returns its profile; null when it had ended already or never started. */
    private synchronized Profile claimEnd() {
        if (ended || profile == null) {
            return null;
        }
        ended = true;
        return profile;
    }

    /** Returns whether the capture has ended. */
    synchronized boolean ended() {
        return ended;
    }
}
