package dev.vantage.trace.engine;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import dev.vantage.profiler.api.EventAverage;

/**
 * The operators of a trace grouped by name and call stack, as torch's {@code key_averages(group_by_stack_n=5)}
 * groups them and the TensorBoard plugin's Operator view shows them: the engine's key averages, keyed by the
 * innermost {@value #DEPTH} frames of each op's {@code Call stack} (recorded with {@code with_stack}). Empty when the
 * trace recorded no stacks.
 */
public final class OperatorStacks {

    /** How many frames, the innermost first, make an op's key (torch's {@code group_by_stack_n} of 5). */
    public static final int DEPTH = 5;

    /** The table's columns: its rank, the op's name and stack, its calls and its times in nanoseconds. */
    public static final List<String> COLUMNS = List.of("rank", "name", "call_stack", "calls", "self_ns", "total_ns",
            "device_self_ns", "device_total_ns");

    private OperatorStacks() {
    }

    /** The rows of a rank's trace, most self time first; none when the trace has no stacks. */
    public static List<List<Object>> rows(int rank, AnalysedTrace trace) {
        List<List<Object>> rows = new ArrayList<>();
        if (!trace.data().hasStacks()) {
            return rows;
        }
        List<EventAverage> averages = new ArrayList<>(trace.keyAverages(false, DEPTH).rows());
        averages.sort(Comparator.comparingLong(EventAverage::selfCpuNanos).reversed());
        for (EventAverage a : averages) {
            if (!a.stack().isEmpty()) {
                rows.add(List.of(rank, a.key(), String.join("; ", a.stack()), a.count(), a.selfCpuNanos(),
                        a.cpuTotalNanos(), a.selfDeviceNanos(), a.deviceTotalNanos()));
            }
        }
        return rows;
    }
}
