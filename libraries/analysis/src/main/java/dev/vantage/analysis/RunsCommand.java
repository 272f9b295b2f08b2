package dev.vantage.analysis;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;

import dev.vantage.analysis.registry.RunEntry;
import dev.vantage.analysis.registry.RunRegistry;
import dev.vantage.profiler.api.RunRecord;

/**
 * {@code vantage runs [--dir DIR] [--json]}: the runs of a profile directory's {@code runs.jsonl}, oldest first.
 * A line of the registry that is not a run is named (file and line) on stderr and skipped; the other runs are
 * listed, and the exit code is then 2 so that a script notices the registry needs care. So is every artifact that
 * is gone or no longer what its run wrote (its size and sha256 in the line).
 */
final class RunsCommand {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss", Locale.ROOT)
            .withZone(ZoneOffset.UTC);

    private RunsCommand() {
    }

    static int run(Options.Runs options, PrintStream out, PrintStream err) {
        boolean json = options.json();
        Path registryDir = options.dir();
        RunRegistry registry;
        try {
            registry = RunRegistry.open(registryDir);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("runs: " + e.getMessage());
        }
        for (String problem : registry.problems()) {
            err.println("vantage: runs: warning: " + problem);
        }
        List<RunEntry> runs = new ArrayList<>(registry.runs());
        // every artifact is checked against its size and sha256: a file another run wrote over is named
        int changed = 0;
        for (RunEntry r : runs) {
            for (String why : r.changedArtifacts()) {
                err.println("vantage: runs: warning: " + r.file() + ":" + r.line() + ": run " + r.record().runId()
                        + ": " + why + "; compare and report refuse it");
                changed++;
            }
        }
        // newest last; a stable sort keeps the file's order for runs that started together
        runs.sort(Comparator.comparingLong(r -> r.record().startEpochNanos()));
        if (json) {
            ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
            ArrayNode array = mapper.createArrayNode();
            runs.forEach(r -> array.add(r.json()));
            try {
                out.println(mapper.writeValueAsString(array));
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new IllegalStateException("writing JSON failed", e);
            }
        } else if (runs.isEmpty()) {
            out.println("no runs in " + registry.file());
        } else {
            table(runs, out);
        }
        return registry.problems().isEmpty() && changed == 0 ? 0 : 2;
    }

    private static void table(List<RunEntry> runs, PrintStream out) {
        int what = "WORKLOAD".length();
        int device = "DEVICE".length();
        for (RunEntry r : runs) {
            what = Math.max(what, r.what().length());
            device = Math.max(device, r.device() == null ? 1 : r.device().length());
        }
        String format = "%-12s  %-19s  %-" + what + "s  %-4s  %-" + device + "s  %5s  %12s  %9s%n";
        out.printf(format, "RUN", "START (UTC)", "WORKLOAD", "RANK", "DEVICE", "STEPS", "MEAN STEP", "ARTIFACTS");
        for (RunEntry r : runs) {
            RunRecord run = r.record();
            Instant start = Instant.ofEpochSecond(0, run.startEpochNanos());
            out.printf(format, run.runId(), TIME.format(start), r.what(),
                    run.rank() == null ? "-" : run.rank().toString(), r.device() == null ? "-" : r.device(),
                    run.steps().size(), r.meanStepNanos().isPresent() ? millis(r.meanStepNanos().getAsDouble()) : "-",
                    run.artifacts().size());
        }
    }

    /** A duration in nanoseconds as milliseconds with three significant decimals at most. */
    static String millis(double nanos) {
        double ms = nanos / 1e6;
        return String.format(Locale.ROOT, ms >= 100 ? "%.1f ms" : "%.3f ms", ms);
    }
}
