package dev.vantage.exporter.tensorboard.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.Trace;

/**
 * The per-step scalars of a trace: {@code step_time_ms} (the {@code ProfilerStep#N} span),
 * {@code cpu_op_time_ms} (self time of the host ops that started in the step), {@code device_time_ms/<device>}
 * (device work that started in it), {@code communication_time_ms/<device>} (the part of that work that is
 * communication: HCCL's {@code hcom_*} and NCCL's kernels, or any carrying a {@code Collective name}; each rank's
 * own, in its own event file) and {@code peak_memory_mb/<device>} (the highest allocated total in it). A
 * trace without steps counts as step 0 over its whole window. Two passes over the cursor: steps, then sums.
 */
final class StepScalars {

    /** One value for one step. */
    record Scalar(long step, String tag, float value) {
    }

    private static final class Step {
        final long number;
        final long start;
        final long end;
        final Map<String, Double> values = new TreeMap<>();

        Step(long number, long start, long end) {
            this.number = number;
            this.start = start;
            this.end = end;
        }
    }

    private StepScalars() {
    }

    static List<Scalar> of(Trace trace) {
        List<Step> steps = new ArrayList<>();
        EventCursor c = trace.events();
        while (c.next()) {
            if (c.kind() == EventKind.USER_ANNOTATION && c.name().matches("ProfilerStep#\\d+")) {
                long start = c.startEpochNanos();
                steps.add(new Step(Long.parseLong(c.name().substring("ProfilerStep#".length())), start,
                        start + c.durationNanos()));
            }
        }
        if (steps.isEmpty()) {
            steps.add(new Step(0, trace.startEpochNanos(), trace.endEpochNanos()));
        }
        steps.sort((a, b) -> Long.compare(a.start, b.start));
        for (Step s : steps) {
            s.values.put("step_time_ms", (s.end - s.start) / 1e6);
            s.values.put("cpu_op_time_ms", 0.0);
        }
        c = trace.events();
        while (c.next()) {
            Step s = at(steps, c.startEpochNanos());
            if (s == null) {
                continue;
            }
            EventKind kind = c.kind();
            if (kind == EventKind.CPU_OP) {
                s.values.merge("cpu_op_time_ms", c.selfDurationNanos() / 1e6, Double::sum);
            } else if (kind.isDeviceWork()) {
                String device = c.deviceType() + ":" + c.deviceIndex();
                s.values.merge("device_time_ms/" + device, c.durationNanos() / 1e6, Double::sum);
                if (c.isCommunication()) {
                    s.values.merge("communication_time_ms/" + device, c.durationNanos() / 1e6, Double::sum);
                }
            } else if (kind == EventKind.MEMORY) {
                String device = c.deviceType().equals("cpu") ? "cpu" : c.deviceType() + ":" + c.deviceIndex();
                s.values.merge("peak_memory_mb/" + device, c.memoryTotalAllocated() / (1024.0 * 1024.0),
                        Math::max);
            }
        }
        List<Scalar> scalars = new ArrayList<>();
        for (Step s : steps) {
            s.values.forEach((tag, value) -> scalars.add(new Scalar(s.number, tag, value.floatValue())));
        }
        return scalars;
    }

    private static Step at(List<Step> steps, long time) {
        for (Step s : steps) {
            if (s.start <= time && time < s.end) {
                return s;
            }
        }
        return null;
    }
}
