package dev.vantage.board.internal;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.vantage.board.internal.views.MemoryView;
import dev.vantage.board.internal.views.SnapshotSegments;
import dev.vantage.profiler.api.RunRecord;
import dev.vantage.trace.engine.read.TraceReader;

/**
 * The runs of a log directory, found by walking it: each line of a Vantage run registry ({@code runs.jsonl}) is a run
 * (its trace, with the registry's tags), and every other trace file is a run of its own: PyTorch's
 * {@code *.pt.trace.json} and {@code .json.gz} (TensorBoard's {@code plugins/profile/<run>/<worker>.pt.trace.json}
 * included), any {@code *.trace.json}, Perfetto's {@code .pftrace} and ONNX Runtime's own
 * {@code onnxruntime_profile_*.json}, and any other {@code .json} or {@code .json.gz} whose beginning holds
 * {@code "traceEvents"} (HTA's {@code rank-0.json.gz}). Nothing outside the directory is listed:
 * symbolic links are not followed, and a registry's path that leads out is an error row. A walk reads only names,
 * sizes and registry lines, never a trace.
 */
final class Logdir {

    /** How deep the walk goes below the directory. */
    static final int MAX_DEPTH = 8;
    /** The most runs listed; a directory with more is listed up to this many, and says so. */
    static final int MAX_RUNS = 10_000;
    /** The largest registry read. */
    static final long MAX_REGISTRY_BYTES = 64L << 20;

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One run the walk found.
     *
     * @param id the run's id in URLs: a hash of its file's path under the directory (and of its registry line)
     * @param name what the list shows
     * @param file the trace, absolute; null for an error row without one
     * @param tags what the registry or the file's place says of the run
     * @param bytes the file's size
     * @param modifiedMillis the file's modification time
     * @param problem why the run cannot be shown, or null
     */
    record Found(String id, String name, Path file, Map<String, String> tags, long bytes, long modifiedMillis,
            String problem) {
    }

    private final Path root;

    Logdir(Path root) {
        this.root = root.toAbsolutePath().normalize();
    }

    /** The directory, absolute. */
    Path root() {
        return root;
    }

    /** Walks the directory and returns its runs: registry runs in registry order, then the other traces by path. */
    List<Found> scan() throws IOException {
        List<Path> registries = new ArrayList<>();
        List<Path> traces = new ArrayList<>();
        Files.walkFileTree(root, EnumSet.noneOf(FileVisitOption.class), MAX_DEPTH, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                String name = dir.getFileName() == null ? "" : dir.getFileName().toString();
                return !dir.equals(root) && name.startsWith(".") ? FileVisitResult.SKIP_SUBTREE
                        : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                // a symbolic link is visited as a link (not followed): it is neither a regular file nor listed
                if (!attrs.isRegularFile()) {
                    return FileVisitResult.CONTINUE;
                }
                String name = file.getFileName().toString();
                if (name.equals("runs.jsonl")) {
                    registries.add(file);
                } else if (isTrace(name) || looksLikeTrace(file, name, attrs)) {
                    traces.add(file);
                }
                return registries.size() + traces.size() > MAX_RUNS ? FileVisitResult.TERMINATE
                        : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) {
                // a folder the user may not read, or one removed while walking: the rest is still listed
                return FileVisitResult.CONTINUE;
            }
        });
        registries.sort(null);
        traces.sort(null);
        List<Found> runs = new ArrayList<>();
        Set<Path> claimed = new HashSet<>();
        for (Path registry : registries) {
            registryRuns(registry, runs, claimed);
        }
        for (Path trace : traces) {
            if (!claimed.contains(trace) && runs.size() < MAX_RUNS) {
                runs.add(looseTrace(trace));
            }
        }
        return runs;
    }

    /** Whether a file's name is one of a trace the walk lists by itself. */
    static boolean isTrace(String name) {
        return name.endsWith(".trace.json") || name.endsWith(".trace.json.gz") || TraceReader.isPerfettoName(name)
                // ONNX Runtime's own profile, as its SessionOptions.enableProfiling names it
                || name.startsWith("onnxruntime_profile_") && name.endsWith(".json");
    }

    /** What the sniffing found of other {@code .json} files, by path, size and time, so each is opened once. */
    private final Map<String, Boolean> sniffed = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * Whether a {@code .json} or {@code .json.gz} file of another name is a trace all the same (HTA's
     * {@code rank-0.json.gz}, a renamed export): its first 64 KiB hold {@code "traceEvents"}. Read once per version.
     */
    private boolean looksLikeTrace(Path file, String name, BasicFileAttributes attrs) {
        if (!(name.endsWith(".json") || name.endsWith(".json.gz")) || name.endsWith(".memory-timeline.json")
                || name.endsWith(".memory-timeline.json.gz") || name.equals("runs.jsonl")) {
            return false;
        }
        String key = file + "\u0000" + attrs.size() + "\u0000" + attrs.lastModifiedTime().toMillis();
        return sniffed.computeIfAbsent(key, k -> {
            if (sniffed.size() > 4 * MAX_RUNS) {
                sniffed.clear();
            }
            try (java.io.InputStream raw = Files.newInputStream(file);
                    java.io.InputStream in = name.endsWith(".gz") ? new java.util.zip.GZIPInputStream(raw) : raw) {
                byte[] head = in.readNBytes(64 * 1024);
                return new String(head, StandardCharsets.ISO_8859_1).contains("\"traceEvents\"");
            } catch (IOException e) {
                return false;
            }
        });
    }

    private Found looseTrace(Path trace) throws IOException {
        String relative = relative(trace);
        Map<String, String> tags = new LinkedHashMap<>();
        Path parent = root.relativize(trace).getParent();
        // TensorBoard's layout: <logdir>/<run>/plugins/profile/<time>/<worker>.pt.trace.json
        if (parent != null && parent.getNameCount() >= 3 && parent.getName(parent.getNameCount() - 3).toString()
                .equals("plugins") && parent.getName(parent.getNameCount() - 2).toString().equals("profile")) {
            tags.put("run", parent.getNameCount() > 3 ? parent.getName(parent.getNameCount() - 4).toString()
                    : root.getFileName() == null ? "" : root.getFileName().toString());
            tags.put("capture", parent.getName(parent.getNameCount() - 1).toString());
            tags.put("worker", trace.getFileName().toString().replaceFirst("\\.pt\\.trace\\.json(\\.gz)?$", ""));
        }
        String name = trace.getFileName().toString();
        tags.put("source", name.endsWith(".pt.trace.json") || name.endsWith(".pt.trace.json.gz") ? "pytorch"
                : TraceReader.isPerfettoName(name) ? "perfetto"
                : name.startsWith("onnxruntime_profile_") ? "onnxruntime" : "trace");
        return withFile(id(relative), relative, trace, tags, null);
    }

    private void registryRuns(Path registry, List<Found> runs, Set<Path> claimed) throws IOException {
        String where = relative(registry);
        if (Files.size(registry) > MAX_REGISTRY_BYTES) {
            runs.add(new Found(id(where), where, null, Map.of(), 0, 0, "a registry larger than "
                    + (MAX_REGISTRY_BYTES >> 20) + " MiB is not read"));
            return;
        }
        Path dir = registry.getParent();
        int number = 0;
        try (BufferedReader in = Files.newBufferedReader(registry, StandardCharsets.UTF_8)) {
            for (String line = in.readLine(); line != null && runs.size() < MAX_RUNS; line = in.readLine()) {
                number++;
                if (line.isBlank()) {
                    continue;
                }
                String lineId = id(where + "#" + number);
                JsonNode run;
                try {
                    run = JSON.readTree(line);
                } catch (IOException e) {
                    runs.add(new Found(lineId, where + " line " + number, null, Map.of(), 0, 0,
                            "the registry's line is not JSON"));
                    continue;
                }
                String runId = run.path("run_id").asText("");
                String name = runId.isEmpty() ? where + " line " + number : runId;
                List<RunRecord.Artifact> artifacts = artifacts(dir, run.path("artifacts"));
                // every trace the run wrote is the run's, never a loose trace of its own: TensorBoard's and
                // Perfetto's copies of a cycle, and each cycle of a run with several, which is listed by itself
                for (String kind : TraceReader.RUN_TRACE_KINDS) {
                    claimed.addAll(TraceReader.runTraces(artifacts, kind));
                }
                List<Path> cycles = TraceReader.runTraces(artifacts);
                if (cycles.isEmpty()) {
                    runs.add(new Found(lineId, name, null, tags(run), 0, 0, "the run wrote no trace"));
                    continue;
                }
                for (int k = 0; k < cycles.size() && runs.size() < MAX_RUNS; k++) {
                    Map<String, String> tags = tags(run);
                    String cycleName = name;
                    String cycleId = lineId;
                    if (cycles.size() > 1) {
                        tags.put("cycle", (k + 1) + " of " + cycles.size());
                        cycleName = name + " cycle " + (k + 1);
                        cycleId = k == 0 ? lineId : id(where + "#" + number + "#" + (k + 1));
                    }
                    runs.add(registryRun(artifacts, cycles.get(k), cycleId, cycleName, tags));
                }
            }
        }
    }

    /** One trace of a registry run: refused when outside the directory or missing, else with its memory files. */
    private Found registryRun(List<RunRecord.Artifact> artifacts, Path trace, String id, String name,
            Map<String, String> tags) throws IOException {
        if (!trace.startsWith(root)) {
            return new Found(id, name, null, tags, 0, 0, "its trace is outside the log directory");
        }
        if (!Files.isRegularFile(trace, LinkOption.NOFOLLOW_LINKS)) {
            // a missing file, or a symbolic link (which may lead anywhere): not served
            return new Found(id, name, null, tags, 0, 0, "its trace " + relative(trace) + " is missing");
        }
        Path snapshot = artifact(artifacts, "memory-snapshot", "");
        if (snapshot != null && snapshot.startsWith(root) && Files.isRegularFile(snapshot, LinkOption.NOFOLLOW_LINKS)) {
            // the Memory view reads its segments; found here, inside the directory, never elsewhere
            tags.put(SnapshotSegments.TAG, trace.getParent().relativize(snapshot).toString());
        }
        // the cycle's own timeline (<name>-cycleK.memory-timeline.json beside <name>-cycleK.trace.json), else the
        // run's first
        String base = trace.getFileName().toString().replaceFirst("\\.trace\\.json(\\.gz)?$", "");
        Path timeline = artifact(artifacts, "memory-timeline", base + ".memory-timeline.json");
        if (timeline == null) {
            timeline = artifact(artifacts, "memory-timeline", ".json");
        }
        if (timeline != null && timeline.startsWith(root) && Files.isRegularFile(timeline, LinkOption.NOFOLLOW_LINKS)) {
            tags.put(MemoryView.TIMELINE_TAG, trace.getParent().relativize(timeline).toString());
        }
        return withFile(id, name, trace, tags, null);
    }

    private static Map<String, String> tags(JsonNode run) {
        Map<String, String> tags = new LinkedHashMap<>();
        tags.put("source", "vantage");
        JsonNode configuration = run.path("configuration");
        for (String key : List.of("workload", "device")) {
            if (configuration.path(key).isTextual()) {
                tags.put(key, configuration.path(key).asText());
            }
        }
        for (String key : List.of("trigger", "status", "start_time", "job_id")) {
            if (run.path(key).isValueNode() && !run.path(key).isNull()) {
                tags.put(key, run.path(key).asText());
            }
        }
        if (run.path("rank").isInt()) {
            tags.put("rank", run.path("rank").asText() + (run.path("world_size").isInt() ? " of "
                    + run.path("world_size").asText() : ""));
        }
        return tags;
    }

    /** A run's artifacts as its registry line lists them, absolute and normalized; a path no file can have is none. */
    private static List<RunRecord.Artifact> artifacts(Path dir, JsonNode artifacts) {
        List<RunRecord.Artifact> out = new ArrayList<>();
        for (JsonNode a : artifacts) {
            String path = a.path("path").asText("");
            if (!path.isEmpty()) {
                try {
                    out.add(new RunRecord.Artifact(dir.resolve(path).toAbsolutePath().normalize(),
                            a.path("kind").asText("")));
                } catch (java.nio.file.InvalidPathException e) {
                    // a path this file system cannot name is no file of the run
                }
            }
        }
        return out;
    }

    /** A run's first artifact of a kind whose file name ends with a suffix, or null. */
    private static Path artifact(List<RunRecord.Artifact> artifacts, String kind, String suffix) {
        return artifacts.stream().filter(a -> a.kind().equals(kind) && a.target().getFileName() != null
                && a.target().getFileName().toString().endsWith(suffix)).map(RunRecord.Artifact::target).findFirst()
                .orElse(null);
    }

    private static Found withFile(String id, String name, Path file, Map<String, String> tags, String problem)
            throws IOException {
        BasicFileAttributes attrs;
        try {
            attrs = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (java.nio.file.NoSuchFileException e) {
            return new Found(id, name, null, tags, 0, 0, "removed while the directory was read");
        }
        return new Found(id, name, file, tags, attrs.size(), attrs.lastModifiedTime().toMillis(), problem);
    }

    private String relative(Path file) {
        return root.relativize(file).toString().replace('\\', '/');
    }

    /** A run's id: the first 16 hexadecimal digits of the SHA-256 of what names it. */
    static String id(String key) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
