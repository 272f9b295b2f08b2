package dev.vantage.benchmarks;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.vantage.trace.engine.summary.OpStats;
import dev.vantage.trace.engine.summary.StepStats;
import dev.vantage.trace.engine.read.TraceReader;
import dev.vantage.trace.engine.summary.TraceSummary;

/**
 * Prints a trace's operator table as {@code report} computes it, as JSON ({@code ops}: name to [calls, total, self,
 * device total, device self] in ns; {@code steps}: [N, ns]), for {@code benchmarks/pytorch/compare_ops.py}:
 * {@code java -cp benchmarks/target/benchmarks.jar dev.vantage.benchmarks.TraceOps TRACE}.
 */
public final class TraceOps {

    private TraceOps() {
    }

    public static void main(String[] args) throws Exception {
        TraceSummary s = TraceReader.summary(Path.of(args[0]));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("steps", s.steps().stream().map((StepStats x) -> List.of(x.step(), x.durationNanos())).toList());
        Map<String, List<Long>> ops = new LinkedHashMap<>();
        for (OpStats o : s.ops().stream().filter(OpStats::isOperator).toList()) {
            ops.put(o.name(), List.of(o.count(), o.totalNanos(), o.selfNanos(), o.deviceTotalNanos(),
                    o.deviceSelfNanos()));
        }
        out.put("ops", ops);
        System.out.println(new ObjectMapper().writeValueAsString(out));
    }
}
