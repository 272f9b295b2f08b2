package dev.vantage.analysis;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import dev.vantage.trace.engine.AnalysedTrace;
import dev.vantage.trace.engine.read.TraceReader;
import dev.vantage.profiler.spi.TraceExporter;

/**
 * {@code vantage convert TRACE|DIR... -o DIR [--job-id ID]}: PyTorch traces to the Parquet exporter's four tables,
 * one folder {@code <run>_parquet} per trace, so that {@code analyze} reads a PyTorch job as it reads a Vantage one.
 * The tables are written by the parquet exporter itself, found through the exporter SPI ({@link TraceExporter},
 * declared for {@link ServiceLoader} by the exporter's jar): the trace is read by the engine and handed over as the
 * trace model ({@link AnalysedTrace}), so there is one schema and one step rule.
 *
 * <p>Identity of each trace: {@code run_id} is the file name without {@code .json}, {@code .gz} and
 * {@code .pt.trace}; {@code job_id} is {@code --job-id}, else the name of the directory the trace was found in (for a
 * file given on its own, its parent's name); {@code rank} is {@code distributedInfo}'s, else the number after
 * {@code rank} or {@code worker} in the file name, else the trace's position among its job's traces;
 * {@code world_size} is {@code distributedInfo}'s, else the number of the job's traces.
 */
final class ConvertCommand {

    private static final Pattern RANK_IN_NAME = Pattern.compile("(?i)(?:rank|worker)[-_]?(\\d{1,6})");

    private ConvertCommand() {
    }

    static int run(Options.Convert options, PrintStream out) throws IOException {
        // every input is checked, and the traces found, before anything is read or written
        Map<String, List<Path>> jobs = new LinkedHashMap<>();
        for (Path in : options.inputs()) {
            if (Files.isDirectory(in)) {
                List<Path> traces = traces(in);
                if (traces.isEmpty()) {
                    throw new IllegalArgumentException("directory '" + in
                            + "' holds no *.json, *.pftrace or their .gz trace");
                }
                jobs.computeIfAbsent(options.jobId() != null ? options.jobId() : name(in.toAbsolutePath()),
                        k -> new ArrayList<>()).addAll(traces);
            } else if (Files.isRegularFile(in) && Files.isReadable(in)) {
                Path parent = in.toAbsolutePath().getParent();
                jobs.computeIfAbsent(options.jobId() != null ? options.jobId() : name(parent),
                        k -> new ArrayList<>()).add(in);
            } else {
                throw new IllegalArgumentException("'" + in + "' is not a readable file or directory");
            }
        }
        Set<String> runs = new HashSet<>();
        for (List<Path> traces : jobs.values()) {
            for (Path p : traces) {
                if (!runs.add(runId(p))) {
                    throw new IllegalArgumentException("two traces would both be run '" + runId(p) + "' (" + p
                            + "); convert them into different -o directories");
                }
            }
        }
        Files.createDirectories(options.output());
        TraceExporter parquet = exporter("parquet");
        int written = 0;
        for (Map.Entry<String, List<Path>> job : jobs.entrySet()) {
            List<Path> traces = job.getValue();
            for (int i = 0; i < traces.size(); i++) {
                Path p = traces.get(i);
                // one trace at a time: its columns (on the heap while small, mapped beyond) go before the next
                try (AnalysedTrace trace = TraceReader.read(p)) {
                    int rank = trace.rank() >= 0 ? trace.rank() : rankInName(p, i);
                    int worldSize = trace.worldSize() > 0 ? trace.worldSize() : traces.size();
                    Path target = parquet.defaultTarget(options.output(), runId(p));
                    parquet.export(trace.withMetadata(Map.of("vantage.job_id", job.getKey(), "vantage.run_id",
                            runId(p), "rank", Integer.toString(rank), "world_size",
                            Integer.toString(Math.max(worldSize, rank + 1)))), target);
                    out.println("converted: " + p + " -> " + target + " (job " + job.getKey() + ", rank " + rank
                            + ", " + trace.data().source().format() + ")");
                }
                written++;
            }
        }
        out.println(written + (written == 1 ? " trace" : " traces") + " converted into " + options.output()
                + "; run: vantage analyze " + options.output());
        return 0;
    }

    /** The exporter of a format on this class path, through the exporter SPI. */
    static TraceExporter exporter(String format) {
        for (TraceExporter e : ServiceLoader.load(TraceExporter.class, ConvertCommand.class.getClassLoader())) {
            if (e.format().equals(format)) {
                return e;
            }
        }
        throw new IllegalStateException("no " + format + " exporter on the class path (lib/analysis holds it)");
    }

    private static List<Path> traces(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> Files.isRegularFile(f) && !f.getFileName().toString().startsWith("."))
                    .filter(f -> TraceReader.isTraceName(f.getFileName().toString()))
                    .sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String name(Path dir) {
        Path n = dir == null ? null : dir.getFileName();
        return n == null ? "job" : n.toString();
    }

    /** The file name without {@code .gz}, {@code .json}, {@code .pftrace} and {@code .pt.trace}. */
    static String runId(Path file) {
        String n = file.getFileName().toString();
        for (String suffix : new String[] {".gz", ".json", ".pftrace", ".perfetto-trace", ".pt.trace", ".trace"}) {
            if (n.endsWith(suffix)) {
                n = n.substring(0, n.length() - suffix.length());
            }
        }
        return n.isEmpty() ? "trace" : n;
    }

    static int rankInName(Path file, int position) {
        Matcher m = RANK_IN_NAME.matcher(file.getFileName().toString());
        return m.find() ? Integer.parseInt(m.group(1)) : position;
    }
}
