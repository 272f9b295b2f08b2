package dev.vantage.analysis.registry;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.vantage.profiler.api.RunRecord;

/**
 * Reads a run registry: the {@code runs.jsonl} a profile directory collects, one JSON line per profiled run (a
 * {@code vantage run --profile}, each rank of a {@code vantage launch}, each on-demand capture). The verbs that take
 * runs ({@code runs}, {@code compare}, {@code report}) read it through this class.
 *
 * <p>Each run is read into the profiler API's {@link RunRecord}, the type the profiler core wrote the line from. A
 * line that is not a run (not JSON, not an object, without a field every run has, a field of the wrong type, or a
 * value {@code RunRecord} refuses, such as a run id that is not 12 lowercase hex digits) is skipped and reported in
 * {@link #problems()} with its line number; the other runs are still read, so one damaged line never costs the
 * whole registry. Blank lines are ignored. An instance is an immutable snapshot of the file when
 * {@link #open} read it; thread-safe.
 *
 * <pre>{@code
 * RunRegistry registry = RunRegistry.open(Path.of("vantage_profiles"));
 * RunEntry a = registry.find("3f9a");          // a run id or a unique prefix of one
 * RunRecord run = a.record();                  // the run as the profiler API models it
 * List<Path> traces = a.traces();              // its Chrome traces, absolute
 * }</pre>
 */
public final class RunRegistry {

    /** The registry's file name inside a profile directory. */
    public static final String FILE_NAME = "runs.jsonl";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path file;
    private final List<RunEntry> runs;
    private final List<String> problems;

    private RunRegistry(Path file, List<RunEntry> runs, List<String> problems) {
        this.file = file;
        this.runs = List.copyOf(runs);
        this.problems = List.copyOf(problems);
    }

    /**
     * Reads the registry of a profile directory, or a registry file itself.
     *
     * @param location a directory holding {@value #FILE_NAME}, or the file
     * @return the registry; its {@link #problems()} name the lines that were skipped
     * @throws IllegalArgumentException if the location does not exist, holds no {@value #FILE_NAME}, or is a file of
     *     which no line is a run (not a registry); the message names the path and, for the last, the first bad line
     * @throws UncheckedIOException if reading fails
     */
    public static RunRegistry open(Path location) {
        Objects.requireNonNull(location, "location");
        Path file;
        if (Files.isDirectory(location)) {
            file = location.resolve(FILE_NAME);
            if (!Files.isRegularFile(file)) {
                throw new IllegalArgumentException(location + ": no " + FILE_NAME + " (not a profile directory;"
                        + " every 'vantage run --profile' adds a line to <profile-dir>/" + FILE_NAME + ")");
            }
        } else if (Files.isRegularFile(location)) {
            file = location;
        } else {
            throw new IllegalArgumentException(location + ": no such directory");
        }
        file = file.toAbsolutePath().normalize();
        List<RunEntry> runs = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        try (BufferedReader reader = new BufferedReader(new java.io.InputStreamReader(Files.newInputStream(file),
                StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT)))) {
            int number = 0;
            for (String text = reader.readLine(); text != null; text = reader.readLine()) {
                number++;
                if (text.isBlank()) {
                    continue;
                }
                try {
                    runs.add(parse(text, number, file));
                } catch (BadLine e) {
                    problems.add(file + ":" + number + ": " + e.getMessage() + "; line skipped");
                }
            }
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException(file + ": not a run registry (not UTF-8 text)");
        } catch (IOException e) {
            throw new UncheckedIOException(file + ": " + e.getMessage(), e);
        }
        if (runs.isEmpty() && !problems.isEmpty()) {
            throw new IllegalArgumentException("not a run registry: " + problems.get(0).replace("; line skipped", ""));
        }
        return new RunRegistry(file, runs, problems);
    }

    /** Returns the registry file, absolute. */
    public Path file() {
        return file;
    }

    /** Returns the directory the registry's relative artifact paths start from: the file's folder. */
    public Path directory() {
        return file.getParent();
    }

    /** Returns every run, in the order of the file (the order in which the runs ended). */
    public List<RunEntry> runs() {
        return runs;
    }

    /**
     * Returns one message per skipped line, in file order, each {@code <file>:<line>: <what is wrong>; line
     * skipped}; empty when every line was read.
     */
    public List<String> problems() {
        return problems;
    }

    /**
     * Finds a run by its id or by a prefix of it that only one run has.
     *
     * @param idOrPrefix a run id, or its first characters
     * @throws IllegalArgumentException if no run, or more than one, matches; the message lists what did
     */
    public RunEntry find(String idOrPrefix) {
        Objects.requireNonNull(idOrPrefix, "idOrPrefix");
        if (idOrPrefix.isEmpty()) {
            throw new IllegalArgumentException("a run id must not be empty");
        }
        Map<String, RunEntry> matches = new LinkedHashMap<>();
        for (RunEntry r : runs) {
            String id = r.record().runId();
            if (id.equals(idOrPrefix)) {
                return r;
            }
            if (id.startsWith(idOrPrefix)) {
                matches.putIfAbsent(id, r);
            }
        }
        if (matches.isEmpty()) {
            throw new IllegalArgumentException("no run '" + idOrPrefix + "' in " + file + " (vantage runs --dir "
                    + directory() + " lists them)");
        }
        if (matches.size() > 1) {
            throw new IllegalArgumentException("run '" + idOrPrefix + "' is ambiguous in " + file + ": "
                    + String.join(", ", matches.keySet()));
        }
        return matches.values().iterator().next();
    }

    /** A line that is not a run. */
    private static final class BadLine extends Exception {
        BadLine(String message) {
            super(message, null, false, false);
        }
    }

    private static RunEntry parse(String text, int number, Path file) throws BadLine {
        JsonNode node;
        try {
            node = JSON.readTree(text);
        } catch (JsonProcessingException e) {
            throw new BadLine("not JSON (" + e.getOriginalMessage() + ")");
        }
        if (!(node instanceof ObjectNode line)) {
            throw new BadLine("not a JSON object");
        }
        String runId = text(line, "run_id", true);
        if (runId.isEmpty()) {
            throw new BadLine("run_id is empty");
        }
        long start = number(line, "start_epoch_ns");
        long end = number(line, "end_epoch_ns");
        List<String> command = new ArrayList<>();
        for (JsonNode word : line.path("command_line")) {
            command.add(word.asText());
        }
        List<RunRecord.Step> steps = new ArrayList<>();
        for (JsonNode s : array(line, "steps")) {
            Map<String, Long> allocated = new LinkedHashMap<>();
            Map<String, Long> peaks = new LinkedHashMap<>();
            s.path("memory").properties().forEach(e -> {
                JsonNode now = e.getValue().path("allocated_bytes");
                if (now.canConvertToLong()) {
                    allocated.put(e.getKey(), now.asLong());
                }
                JsonNode peak = e.getValue().path("peak_allocated_bytes");
                if (peak.canConvertToLong()) {
                    peaks.put(e.getKey(), peak.asLong());
                }
            });
            if (!s.path("step").canConvertToLong() || !s.path("duration_ns").canConvertToLong()) {
                throw new BadLine("a step without a whole step and duration_ns");
            }
            steps.add(new RunRecord.Step(s.path("step").asLong(), s.path("duration_ns").asLong(), allocated, peaks));
        }
        Path dir = file.getParent();
        List<RunRecord.Artifact> artifacts = new ArrayList<>();
        for (JsonNode a : array(line, "artifacts")) {
            if (!a.path("path").isTextual() || a.path("path").asText().isEmpty()) {
                throw new BadLine("an artifact without a path");
            }
            String path = a.path("path").asText();
            Path target;
            try {
                target = dir.resolve(path).normalize();
            } catch (java.nio.file.InvalidPathException e) {
                throw new BadLine("artifact path '" + path + "' is not a path here");
            }
            artifacts.add(new RunRecord.Artifact(target, a.path("kind").asText("unknown")));
        }
        String jobId = text(line, "job_id", false);
        Integer rank = integer(line, "rank");
        Integer worldSize = integer(line, "world_size");
        String status = text(line, "status", true);
        RunRecord record;
        try {
            record = new RunRecord(runId, jobId, rank, worldSize, line.path("trigger").asText("run"), status, start,
                    end, command, configuration(line), devices(line), steps, artifacts);
        } catch (IllegalArgumentException e) {
            // what the API refuses: an id that is not one RunRecord.newId() makes, an end before the start
            throw new BadLine(e.getMessage());
        }
        return new RunEntry(record, file, number, line);
    }

    /** The configuration as RunRecord holds it: strings, numbers, booleans, lists and maps; nulls left out. */
    private static Map<String, Object> configuration(ObjectNode line) throws BadLine {
        JsonNode v = line.get("configuration");
        if (v == null || v.isNull()) {
            return Map.of();
        }
        if (!v.isObject()) {
            throw new BadLine("configuration is not an object");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> map = (Map<String, Object>) plain(v);
        return map;
    }

    private static Object plain(JsonNode v) {
        if (v.isObject()) {
            Map<String, Object> map = new LinkedHashMap<>();
            v.properties().forEach(e -> {
                if (!e.getValue().isNull()) {
                    map.put(e.getKey(), plain(e.getValue()));
                }
            });
            return java.util.Collections.unmodifiableMap(map);
        }
        if (v.isArray()) {
            List<Object> list = new ArrayList<>();
            v.forEach(e -> list.add(plain(e)));
            return java.util.Collections.unmodifiableList(list);
        }
        if (v.isIntegralNumber()) {
            return v.canConvertToLong() ? (Object) v.longValue() : v.bigIntegerValue();
        }
        if (v.isNumber()) {
            return v.doubleValue();
        }
        if (v.isBoolean()) {
            return v.booleanValue();
        }
        return v.isNull() ? null : v.asText();
    }

    private static List<RunRecord.Device> devices(ObjectNode line) throws BadLine {
        JsonNode v = line.get("devices");
        if (v == null || v.isNull()) {
            return List.of();
        }
        if (!v.isArray()) {
            throw new BadLine("devices is not an array");
        }
        List<RunRecord.Device> devices = new ArrayList<>();
        for (JsonNode d : v) {
            if (!d.path("name").isTextual()) {
                throw new BadLine("a device without a name");
            }
            JsonNode emulated = d.path("emulated");
            JsonNode capacity = d.path("memory_capacity_bytes");
            devices.add(new RunRecord.Device(d.path("name").asText(),
                    emulated.isBoolean() ? emulated.booleanValue() : null,
                    capacity.isIntegralNumber() && capacity.canConvertToLong() ? capacity.longValue() : null));
        }
        return devices;
    }

    private static String text(ObjectNode line, String field, boolean required) throws BadLine {
        JsonNode v = line.get(field);
        if (v == null || v.isNull()) {
            if (required) {
                throw new BadLine("no " + field);
            }
            return null;
        }
        if (!v.isTextual()) {
            throw new BadLine(field + " is not a string");
        }
        return v.asText();
    }

    private static long number(ObjectNode line, String field) throws BadLine {
        JsonNode v = line.get(field);
        if (v == null || !v.isIntegralNumber() || !v.canConvertToLong()) {
            throw new BadLine(v == null ? "no " + field : field + " is not a whole number");
        }
        return v.asLong();
    }

    private static Integer integer(ObjectNode line, String field) throws BadLine {
        JsonNode v = line.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isIntegralNumber() || !v.canConvertToInt()) {
            throw new BadLine(field + " is not a whole number");
        }
        return v.asInt();
    }

    private static JsonNode array(ObjectNode line, String field) throws BadLine {
        JsonNode v = line.get(field);
        if (v == null || !v.isArray()) {
            throw new BadLine(v == null ? "no " + field : field + " is not an array");
        }
        return v;
    }
}
