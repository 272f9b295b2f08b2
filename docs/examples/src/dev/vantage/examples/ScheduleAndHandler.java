package dev.vantage.examples;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.api.Profiler;
import dev.vantage.profiler.api.Schedule;
import dev.vantage.tensor.Tensor;

/**
 * torch's schedule and {@code on_trace_ready}: skip a step, warm up one, record two, and write each completed cycle
 * as a Chrome trace from the handler.
 */
public final class ScheduleAndHandler {

    private ScheduleAndHandler() {
    }

    /** Runs six steps; returns the traces the handler wrote into {@code dir}. */
    public static List<Path> run(Profiler profiler, Path dir) {
        List<Path> written = new ArrayList<>();
        Tensor x = Tensor.randn(9, 64, 64);
        try (Profile profile = profiler.profile()
                .schedule(Schedule.of(1, 1, 2, 1, 0))   // wait, warmup, active, repeat, skipFirst
                .onTraceReady(cycle -> {
                    Path target = dir.resolve("cycle" + cycle.cycle() + ".trace.json.gz");
                    cycle.export("chrome", target);
                    written.add(target);
                })
                .start()) {
            for (int step = 0; step < 6; step++) {
                x.matmul(x).tanh();
                profile.step();
            }
            profile.stop();
        }
        return written;
    }
}
