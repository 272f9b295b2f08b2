package dev.vantage.exporter.tensorboard.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.StepRule;
import dev.vantage.profiler.trace.Trace;
import dev.vantage.profiler.trace.TraceStep;

/**
 * The per-step scalars of a trace, over its steps ({@link Trace#steps()}) with events attributed by the trace
 * model's one rule ({@link StepRule}): {@code step_time_ms} (the step's time, {@link TraceStep#durationNanos()}),
 * {@code cpu_op_time_ms} (self time of the host ops that started in the step), {@code device_time_ms/<device>}
 * (device work attributed to the step: launched in it), {@code communication_time_ms/<device>} (the part of that
 * work that is communication: HCCL's {@code hcom_*} and NCCL's kernels, or any carrying a {@code Collective name};
 * each rank's own, in its own event file) and {@code peak_memory_mb/<device>} (the highest allocated total in it).
 * A trace without steps counts as step 0 over its whole window. One pass over the cursor.
 */
final class StepScalars {

    /** One value for one step. */
    record Scalar(long step, String tag, float value) {
    }

    private StepScalars() {
    }

    static List<Scalar> of(Trace trace) {
        List<TraceStep> steps = trace.steps();
        boolean stepless = steps.isEmpty();
        if (stepless) {
            steps = List.of(new TraceStep(0, trace.startEpochNanos(), trace.endEpochNanos(), trace.startEpochNanos()));
        }
        List<Map<String, Double>> values = new ArrayList<>();
        for (TraceStep s : steps) {
            Map<String, Double> v = new TreeMap<>();
            v.put("step_time_ms", s.durationNanos() / 1e6);
            v.put("cpu_op_time_ms", 0.0);
            values.add(v);
        }
        EventCursor c = trace.events();
        while (c.next()) {
            EventKind kind = c.kind();
            // the step the trace attributes the event to (StepRule, carried by the cursor); without steps, the whole
            // window is step 0
            int index = stepless ? 0 : c.stepIndex();
            if (index < 0) {
                continue;
            }
            Map<String, Double> v = values.get(index);
            if (kind == EventKind.CPU_OP) {
                v.merge("cpu_op_time_ms", c.selfDurationNanos() / 1e6, Double::sum);
            } else if (kind.isDeviceWork()) {
                String device = c.deviceType() + ":" + c.deviceIndex();
                v.merge("device_time_ms/" + device, c.durationNanos() / 1e6, Double::sum);
                if (c.isCommunication()) {
                    v.merge("communication_time_ms/" + device, c.durationNanos() / 1e6, Double::sum);
                }
            } else if (kind == EventKind.MEMORY) {
                String device = c.deviceType().equals("cpu") ? "cpu" : c.deviceType() + ":" + c.deviceIndex();
                v.merge("peak_memory_mb/" + device, c.memoryTotalAllocated() / (1024.0 * 1024.0), Math::max);
            }
        }
        List<Scalar> scalars = new ArrayList<>();
        for (int i = 0; i < steps.size(); i++) {
            long number = steps.get(i).number();
            values.get(i).forEach((tag, value) -> scalars.add(new Scalar(number, tag, value.floatValue())));
        }
        return scalars;
    }
}
