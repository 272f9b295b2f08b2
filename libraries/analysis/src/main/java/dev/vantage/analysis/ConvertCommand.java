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
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import dev.vantage.trace.engine.AnalysedTrace;
import dev.vantage.trace.engine.read.TraceReader;
import dev.vantage.trace.engine.read.TraceRepairs;
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

    static int run(Options.Convert options, PrintStream out, PrintStream err) throws IOException {
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
        TraceExporter parquet = exporter("parquet");
        // a name given twice must not lose a folder: what is there stays, and is named before any work
        for (List<Path> traces : jobs.values()) {
            for (Path p : traces) {
                Path target = parquet.defaultTarget(options.output(), runId(p));
                if (Files.exists(target)) {
                    throw new IllegalArgumentException("'" + target + "' exists (a conversion of " + p.getFileName()
                            + " or another trace of that name); remove it, or convert into another -o");
                }
            }
        }
        List<String> names = new ArrayList<>();
        List<String> lines = new ArrayList<>();
        // every trace is converted into a hidden staging folder first; only when all are written, and the ranks of
        // each job are distinct, do they get their names: a failure, a refusal or SIGTERM leaves nothing behind
        try (Staging staging = Staging.open(options.output())) {
            for (Map.Entry<String, List<Path>> job : jobs.entrySet()) {
                List<Path> traces = job.getValue();
                Map<Integer, List<String>> byRank = new TreeMap<>();
                for (int i = 0; i < traces.size(); i++) {
                    Path p = traces.get(i);
                    TraceRepairs repairs = new TraceRepairs(options.strict());
                    // one trace at a time: its columns (on the heap while small, mapped beyond) go before the next
                    try (AnalysedTrace trace = TraceReader.read(p, repairs)) {
                        TraceInputs.account(p, repairs, err);
                        int rank = trace.rank() >= 0 ? trace.rank() : rankInName(p, i);
                        byRank.computeIfAbsent(rank, r -> new ArrayList<>()).add(p.getFileName().toString());
                        int worldSize = trace.worldSize() > 0 ? trace.worldSize() : traces.size();
                        String name = parquet.defaultTarget(staging.dir(), runId(p)).getFileName().toString();
                        Path staged = staging.dir().resolve(name);
                        try {
                            parquet.export(trace.withMetadata(Map.of("vantage.job_id", job.getKey(),
                                    "vantage.run_id", runId(p), "rank", Integer.toString(rank), "world_size",
                                    Integer.toString(Math.max(worldSize, rank + 1)))), staged);
                        } catch (IOException e) {
                            throw new IOException("cannot write " + staging.target(name) + ": " + Tools.reason(e), e);
                        }
                        names.add(name);
                        lines.add("converted: " + p + " -> " + staging.target(name) + " (job " + job.getKey()
                                + ", rank " + rank + ", " + trace.data().source().format() + ")");
                    }
                }
                oneTracePerRank(job.getKey(), byRank);
            }
            staging.commit(names);
        }
        lines.forEach(out::println);
        out.println(names.size() + (names.size() == 1 ? " trace" : " traces") + " converted into " + options.output()
                + "; run: vantage analyze " + options.output());
        return 0;
    }

    /**
     * Refuses a job whose traces claim one rank more than once: they are the traces of several runs, which
     * {@code analyze} would add up as one rank ({@code report} refuses the same folder).
     */
    private static void oneTracePerRank(String job, Map<Integer, List<String>> byRank) {
        for (Map.Entry<Integer, List<String>> e : byRank.entrySet()) {
            if (e.getValue().size() > 1) {
                throw new IllegalArgumentException("job '" + job + "' holds traces of more than one run: rank "
                        + e.getKey() + " appears " + e.getValue().size() + " times (" + String.join(", ",
                        e.getValue().subList(0, Math.min(4, e.getValue().size())))
                        + (e.getValue().size() > 4 ? ", ..." : "") + "); convert each run with a --job-id of its"
                        + " own; nothing was written");
            }
        }
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

    /** A directory's own trace files (not its subdirectories'), hidden ones left out, in name order. */
    static List<Path> traces(Path dir) {
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
