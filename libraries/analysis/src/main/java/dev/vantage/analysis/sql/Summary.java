package dev.vantage.analysis.sql;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.vantage.trace.engine.summary.Stragglers;

/**
 * The lines at the top of {@code analyze}'s table: per job (the ranks of one launch), the slowest rank (first row of
 * {@code stragglers}) and how much communication overlapped compute (from {@code overlap}, summed over the ranks),
 * read from the results, never recomputed.
 */
final class Summary {

    private Summary() {
    }

    static List<String> lines(List<ResultTable> results) {
        Map<String, ResultTable> byName = new LinkedHashMap<>();
        for (ResultTable t : results) {
            byName.put(t.name(), t);
        }
        List<String> lines = new ArrayList<>();
        ResultTable stragglers = byName.get("stragglers");
        ResultTable overlap = byName.get("overlap");
        if (stragglers == null) {
            return lines;
        }
        Map<String, List<List<Object>>> jobs = new LinkedHashMap<>();
        int job = stragglers.column("job_id");
        for (List<Object> row : stragglers.rows()) {
            jobs.computeIfAbsent((String) row.get(job), k -> new ArrayList<>()).add(row);
        }
        for (Map.Entry<String, List<List<Object>>> e : jobs.entrySet()) {
            List<Object> slowest = e.getValue().get(0);
            long count = e.getValue().stream().filter(r -> Boolean.TRUE.equals(r.get(stragglers.column("straggler"))))
                    .count();
            lines.add(String.format(Locale.ROOT,
                    "job %s: %d ranks; slowest rank %s: mean step %.3f ms, %.2fx the median rank (%.3f ms); %d %s (>= %.2fx)",
                    e.getKey(), e.getValue().size(), slowest.get(stragglers.column("rank")),
                    ms(slowest.get(stragglers.column("mean_step_ns"))),
                    number(slowest.get(stragglers.column("vs_median"))),
                    ms(slowest.get(stragglers.column("median_rank_step_ns"))), count,
                    count == 1 ? "straggler" : "stragglers", Stragglers.RATIO));
            if (overlap != null) {
                lines.add(overlapLine(e.getKey(), overlap));
            }
        }
        return lines;
    }

    private static String overlapLine(String jobId, ResultTable overlap) {
        long comm = 0;
        long overlapped = 0;
        String lowestRank = null;
        double lowest = Double.MAX_VALUE;
        for (List<Object> row : overlap.rows()) {
            if (!jobId.equals(row.get(overlap.column("job_id")))) {
                continue;
            }
            comm += ((Number) row.get(overlap.column("comm_ns"))).longValue();
            overlapped += ((Number) row.get(overlap.column("overlapped_ns"))).longValue();
            Object pct = row.get(overlap.column("overlap_pct"));
            if (pct != null && ((Number) pct).doubleValue() < lowest) {
                lowest = ((Number) pct).doubleValue();
                lowestRank = String.valueOf(row.get(overlap.column("rank")));
            }
        }
        if (comm == 0) {
            return "job " + jobId + ": no communication on the devices (no communication kernels)";
        }
        return String.format(Locale.ROOT, "job %s: communication %.3f ms, %.1f %% of it overlapped with compute"
                + " (lowest: rank %s, %.1f %%)", jobId, comm / 1e6, 100.0 * overlapped / comm, lowestRank, lowest);
    }

    private static double ms(Object ns) {
        return ns == null ? Double.NaN : ((Number) ns).doubleValue() / 1e6;
    }

    private static double number(Object v) {
        return v == null ? Double.NaN : ((Number) v).doubleValue();
    }
}
