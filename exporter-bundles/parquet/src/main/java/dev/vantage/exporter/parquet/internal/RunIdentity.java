package dev.vantage.exporter.parquet.internal;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.regex.Pattern;

import dev.vantage.profiler.trace.Trace;

/**
 * The columns every row of a trace's tables carries: which job, run and rank the trace is. The run id is the trace
 * metadata's {@code vantage.run_id} (one per profiled process); a trace without one (written before run ids, or by
 * a profile that set none) gets {@code <profile name>@<start time>}, the profile name taken from the target's name
 * without its {@code -rank<N>} and {@code -cycle<N>} suffixes. The job id is {@code vantage.job_id}, which
 * {@code vantage launch} gives all ranks of a launch, else the run id: a process on its own is its own job.
 */
record RunIdentity(String jobId, String runId, int rank, int worldSize) {

    /** The metadata key of the run id. */
    static final String RUN_ID_KEY = "vantage.run_id";
    /** The metadata key of the job id. */
    static final String JOB_ID_KEY = "vantage.job_id";

    private static final Pattern SUFFIXES = Pattern.compile("(-cycle\\d+)?(-rank\\d+)?(-cycle\\d+)?$");

    static RunIdentity of(Trace trace, Path target) {
        Map<String, String> metadata = trace.metadata();
        String runId = metadata.get(RUN_ID_KEY);
        if (runId == null || runId.isBlank()) {
            runId = profileName(target) + "@" + Instant.ofEpochSecond(0, trace.startEpochNanos());
        }
        runId = runId.strip();
        String jobId = metadata.get(JOB_ID_KEY);
        jobId = jobId == null || jobId.isBlank() ? runId : jobId.strip();
        int rank = number(metadata.get("rank"), 0);
        int worldSize = Math.max(number(metadata.get("world_size"), 1), rank + 1);
        return new RunIdentity(jobId, runId, rank, worldSize);
    }

    static String profileName(Path target) {
        Path file = target.getFileName();
        String name = file == null ? "trace" : file.toString();
        if (name.endsWith(ParquetTraceExporter.SUFFIX)) {
            name = name.substring(0, name.length() - ParquetTraceExporter.SUFFIX.length());
        }
        name = SUFFIXES.matcher(name).replaceFirst("");
        return name.isEmpty() ? "trace" : name;
    }

    private static int number(String value, int absent) {
        if (value == null) {
            return absent;
        }
        try {
            int n = Integer.parseInt(value.strip());
            return n < 0 ? absent : n;
        } catch (NumberFormatException e) {
            // the metadata is the user's as well; a rank that is not a number is no rank
            return absent;
        }
    }
}
