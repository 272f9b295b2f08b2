package dev.vantage.analysis;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import dev.vantage.analysis.registry.RunEntry;
import dev.vantage.analysis.registry.RunRegistry;
import dev.vantage.trace.engine.AnalysedTrace;
import dev.vantage.trace.engine.read.TraceReader;
import dev.vantage.trace.engine.read.TraceRepairs;
import dev.vantage.trace.engine.summary.TraceSummary;
import dev.vantage.profiler.api.RunRecord;

/**
 * Resolves what {@code compare} and {@code report} are given to trace files, before any is read: a trace file
 * path, a run id (or a unique prefix of one) of the profile directory's {@code runs.jsonl}, or, for
 * {@code report}, a directory of traces (one per rank). Also writes an output file under a temporary name and
 * renames it, so a failure never leaves half a file under the final name ({@code compare}, {@code report} and
 * {@code analyze} write their {@code -o} files so).
 */
final class TraceInputs {


    /** A resolved input: how the user named it, and its trace files in order. */
    /**
     * What an argument names.
     *
     * @param label the argument, or the run's id
     * @param traces the trace files
     * @param cycles whether the traces are one run's schedule cycles (a run id), not ranks or unrelated files
     */
    record Input(String label, List<Path> traces, boolean cycles) {
    }

    private TraceInputs() {
    }

    /** Returns true for the names the chrome, tensorboard and perfetto exporters give traces. */
    static boolean isTraceName(String name) {
        return TraceReader.isTraceName(name);
    }

    /**
     * Resolves one argument.
     *
     * @param arg a trace file, a run id or prefix, or (when {@code directories}) a directory of trace files
     * @param registryDir where {@code runs.jsonl} is, for run ids
     * @throws IllegalArgumentException naming the argument when it is none of them, or names a run without a
     *     Chrome trace, or a directory without one
     */
    static Input resolve(String arg, Path registryDir, boolean directories) {
        Path path = Path.of(arg);
        if (Files.isRegularFile(path)) {
            readable(path, arg);
            verifyAgainstRegistry(path, arg, registryDir);
            return new Input(arg, List.of(path), false);
        }
        if (Files.isDirectory(path)) {
            if (!directories) {
                throw new IllegalArgumentException("'" + arg + "' is a directory, not a trace file or a run id");
            }
            List<Path> traces = new ArrayList<>();
            try (Stream<Path> files = Files.list(path)) {
                files.filter(f -> Files.isRegularFile(f) && isTraceName(f.getFileName().toString())
                        && !f.getFileName().toString().startsWith(".")).sorted().forEach(traces::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            // a profile directory may hold other JSON (a --memory-snapshot the user put there, torch's files):
            // keep Chrome traces only; a directory without any (PyTorch's rank-0.json.gz, HTA's layout) is a
            // directory of traces
            List<Path> named = new ArrayList<>(traces);
            named.removeIf(f -> !f.getFileName().toString().matches(".*\\.trace\\.json(\\.gz)?"));
            // a .pftrace counts when no Chrome trace of the same name is there (a run exported both ways is one
            // trace, read from its Chrome JSON)
            Set<String> chrome = new HashSet<>();
            named.forEach(f -> chrome.add(f.getFileName().toString().replaceFirst("\\.trace\\.json(\\.gz)?$", "")));
            for (Path f : traces) {
                String n = f.getFileName().toString();
                if (TraceReader.isPerfettoName(n)
                        && !chrome.contains(n.replaceFirst("\\.(pftrace|perfetto-trace)(\\.gz)?$", ""))) {
                    named.add(f);
                }
            }
            named.sort(null);
            if (!named.isEmpty()) {
                traces = named;
            }
            if (traces.isEmpty()) {
                throw new IllegalArgumentException("directory '" + arg
                        + "' holds no trace files (*.trace.json, *.json, *.pftrace or their .gz)");
            }
            traces.forEach(f -> readable(f, f.toString()));
            traces.forEach(f -> verifyAgainstRegistry(f, f.toString(), registryDir));
            return new Input(arg, List.copyOf(traces), false);
        }
        if (arg.isEmpty() || !arg.matches("[0-9A-Za-z_-]+")) {
            throw new IllegalArgumentException("'" + arg + "' is neither a trace file, a directory nor a run id");
        }
        RunRegistry registry;
        try {
            registry = RunRegistry.open(registryDir);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + arg + "' is not a file, and as a run id: " + e.getMessage());
        }
        RunEntry run = registry.find(arg);
        String id = run.record().runId();
        List<Path> traces = run.traces();
        if (traces.isEmpty()) {
            throw new IllegalArgumentException("run " + id + " has no Chrome trace; it wrote "
                    + run.record().artifacts().stream().map(RunRecord.Artifact::kind).distinct().toList()
                    + " (profile it with --profile-export chrome)");
        }
        traces.forEach(f -> readable(f, "run " + id + "'s trace " + f));
        for (Path f : traces) {
            String why = run.changed(f);
            if (why != null) {
                throw new IllegalArgumentException("run " + id + "'s trace " + f + " " + why + ": another run may"
                        + " have written over it, so it is not read as this run's");
            }
        }
        return new Input(id, traces, true);
    }

    /**
     * Refuses a trace file that runs of the profile directory's registry list, when it is what none of them wrote
     * (sha256); a file no run lists, or a directory without a registry, is read as it is.
     */
    private static void verifyAgainstRegistry(Path file, String what, Path registryDir) {
        if (registryDir == null || !Files.isRegularFile(registryDir.resolve(RunRegistry.FILE_NAME))) {
            return;
        }
        RunRegistry registry;
        try {
            registry = RunRegistry.open(registryDir);
        } catch (IllegalArgumentException e) {
            return;   // not a registry: nothing to verify against
        }
        List<RunEntry> listing = registry.runs().stream().filter(r -> r.lists(file)).toList();
        if (listing.isEmpty()) {
            return;
        }
        String last = null;
        for (RunEntry r : listing) {
            last = r.changed(file);
            if (last == null) {
                return;
            }
        }
        throw new IllegalArgumentException(what + " is not what the run that wrote it recorded: it " + last
                + "; another run may have written over it");
    }

    private static void readable(Path file, String what) {
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            throw new IllegalArgumentException(what + " is not a readable file");
        }
    }

    /**
     * Reads a trace, repairing what has one reading and skipping what has none, and says so in one line on
     * {@code err}; or, when {@code strict}, refuses a damaged one.
     *
     * @throws dev.vantage.trace.engine.read.DamagedTraceException naming the file and the byte offset
     */
    static TraceSummary read(Path file, boolean strict, PrintStream err) throws IOException {
        try (AnalysedTrace trace = open(file, strict, err)) {
            return trace.summary(file.getFileName().toString());
        }
    }

    /**
     * Reads a trace as {@link #read} does, for a verb that takes more than its summary from it; the caller closes it.
     *
     * @throws dev.vantage.trace.engine.read.DamagedTraceException naming the file and the byte offset
     */
    static AnalysedTrace open(Path file, boolean strict, PrintStream err) throws IOException {
        TraceRepairs repairs = new TraceRepairs(strict);
        AnalysedTrace trace = TraceReader.read(file, repairs);
        account(file, repairs, err);
        return trace;
    }

    /** Prints the account of a damaged file's reading, one line, when there is one. */
    static void account(Path file, TraceRepairs repairs, PrintStream err) {
        String line = repairs.line(file.toString());
        if (line != null) {
            err.println("vantage: " + line);
        }
    }

    /** What writes the content of an output file. */
    interface Content {
        void write(Writer out) throws IOException;
    }

    /**
     * Writes a file under a temporary name in its directory, then renames it to its name. The temporary file goes
     * on failure and on {@code SIGTERM}; one a {@code kill -9} left is removed by the next write into the directory.
     *
     * @throws IOException naming the file when it cannot be written
     */
    static void writeAtomically(Path file, Content content) throws IOException {
        try {
            writeThroughTemporary(file, content);
        } catch (IOException e) {
            throw new IOException("cannot write " + file + ": " + Tools.reason(e), e);
        }
    }

    private static void writeThroughTemporary(Path file, Content content) throws IOException {
        removeTemporariesOfDeadWriters(file);
        // not Files.createTempFile: its owner-only permissions would stay on the renamed file
        Path tmp = file.resolveSibling("." + file.getFileName() + "." + ProcessHandle.current().pid() + ".tmp");
        Thread hook = new Thread(() -> {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException e) {
                // the next write into the directory removes it
            }
        }, "vantage-output-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE)) {
                content.write(w);
            }
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook removes the file
            }
        }
    }

    /** Removes the temporary files of a file that a killed write left, once its process is gone. */
    private static void removeTemporariesOfDeadWriters(Path file) {
        Path dir = file.getParent();
        if (dir == null) {
            return;
        }
        java.util.regex.Pattern mine = java.util.regex.Pattern.compile(
                java.util.regex.Pattern.quote("." + file.getFileName() + ".") + "(\\d+)\\.tmp");
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                java.util.regex.Matcher m = mine.matcher(p.getFileName().toString());
                if (m.matches() && Files.isRegularFile(p) && !ProcessHandle.of(Long.parseLong(m.group(1)))
                        .map(ProcessHandle::isAlive).orElse(false)) {
                    Files.deleteIfExists(p);
                }
            }
        } catch (IOException | RuntimeException e) {
            // another run's leftovers are not this write's failure
        }
    }
}
