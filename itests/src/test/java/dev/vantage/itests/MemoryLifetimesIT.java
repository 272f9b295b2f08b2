package dev.vantage.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import net.razorvine.pickle.Unpickler;

/**
 * Tensor lifetimes as a memory profile shows them, read back from the files with Jackson and a pickle reader: on
 * every device, a profiled {@code mlp-train} frees inside every step, reaches the same peak in every step after the
 * first, and ends with the same live memory in identical runs; the running sum of {@code Bytes} is
 * {@code Total Allocated} at every {@code [memory]} event, in trace order, over 1,500 CPU steps; the snapshot and
 * the memory summary written at the end of a run give the same bytes; the memory timeline has parameters on every
 * device.
 */
public class MemoryLifetimesIT {

    private static final Path FULL = Distributions.home("full");
    /** One block of the coarsest allocator (the caching allocator rounds to 512 bytes). */
    private static final long BLOCK = 512;

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    /** A recorded step's span and the device's memory events in it. */
    private record Step(String name, double start, double end, List<JsonNode> memory) {
    }

    private static Path only(Path dir, String regex) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().matches(regex)).findFirst()
                    .orElseThrow(() -> new AssertionError("no file " + regex + " in " + dir));
        }
    }

    private static JsonNode trace(Path dir) throws Exception {
        try (InputStream in = new GZIPInputStream(Files.newInputStream(only(dir, ".*\\.trace\\.json\\.gz")))) {
            return new ObjectMapper().readTree(in);
        }
    }

    private static boolean ofDevice(JsonNode e, boolean cpu) {
        return e.path("name").asText().equals("[memory]") && (e.get("args").get("Device Type").asInt() == 0) == cpu;
    }

    private LauncherProcess.Result profile(String device, String activity, Path dir) throws Exception {
        List<String> args = new ArrayList<>(List.of("run", "mlp-train", "--device", device, "--steps", "8",
                "--profile", "--profile-dir", dir.toString(), "--profile-name", "m", "--profile-wait", "0",
                "--profile-warmup", "1", "--profile-active", "5", "--profile-activities", "CPU"));
        if (!device.equals("cpu")) {
            args.add(activity);
        }
        args.add("MEM");
        LauncherProcess.Result r = LauncherProcess.run(FULL, args.toArray(String[]::new));
        assertEquals(r.err(), 0, r.exitCode());
        return r;
    }

    /** Checks one run's trace; returns the live memory after its last [memory] event. */
    private static long checkRun(String device, JsonNode trace) {
        boolean cpu = device.equals("cpu");
        List<Step> steps = new ArrayList<>();
        for (JsonNode e : trace.get("traceEvents")) {
            if (e.path("name").asText().startsWith("ProfilerStep#") && e.path("ph").asText().equals("X")) {
                double ts = e.get("ts").asDouble();
                steps.add(new Step(e.get("name").asText(), ts, ts + e.get("dur").asDouble(), new ArrayList<>()));
            }
        }
        steps.sort((a, b) -> Double.compare(a.start(), b.start()));
        assertEquals(device + ": recorded steps", 5, steps.size());
        Long total = null;
        int events = 0;
        for (JsonNode e : trace.get("traceEvents")) {
            if (!ofDevice(e, cpu)) {
                continue;
            }
            JsonNode a = e.get("args");
            long after = a.get("Total Allocated").asLong();
            if (total != null) {
                assertEquals(device + " event " + events + " " + e, total + a.get("Bytes").asLong(), after);
            }
            total = after;
            events++;
            double ts = e.get("ts").asDouble();
            for (Step s : steps) {
                if (ts >= s.start() && ts < s.end()) {
                    s.memory().add(e);
                }
            }
        }
        assertTrue(device + ": " + events + " [memory] events", total != null && events > 20);
        long secondPeak = -1;
        for (int i = 0; i < steps.size(); i++) {
            Step s = steps.get(i);
            long frees = s.memory().stream().filter(e -> e.get("args").get("Bytes").asLong() < 0).count();
            assertTrue(device + " " + s.name() + ": no free among " + s.memory().size() + " [memory] events",
                    frees > 0);
            long peak = s.memory().stream().mapToLong(e -> e.get("args").get("Total Allocated").asLong()).max()
                    .orElseThrow();
            if (i == 1) {
                secondPeak = peak;
            } else if (i > 1) {
                assertTrue(device + " " + s.name() + ": peak " + peak + " bytes, " + secondPeak + " in "
                        + steps.get(1).name(), Math.abs(peak - secondPeak) <= BLOCK);
            }
        }
        assertEquals("no block left to the collector", "0",
                trace.get("vantage.memory.late_frees").asText());
        return total;
    }

    @Test
    public void everyStepFreesAndPeaksAlikeAndIdenticalRunsEndAlikeOnEveryDevice() throws Exception {
        for (String[] device : new String[][] {{"cpu", "CPU"}, {"npu", "NPU"}, {"spyre", "SPYRE"},
                {"mps", "MPS"}}) {
            long[] live = new long[2];
            for (int run = 0; run < 2; run++) {
                Path dir = tmp.newFolder(device[0] + run).toPath();
                profile(device[0], device[1], dir);
                live[run] = checkRun(device[0], trace(dir));
                // torch's memory timeline has its PARAMETER band on every device, the CPU's too
                JsonNode sizes = new ObjectMapper().readTree(dir.resolve("m_memory-timeline").resolve("m.memory-timeline.json").toFile()).get(1);
                assertTrue(device[0] + ": " + sizes.size() + " timeline points", sizes.size() > 10);
                for (JsonNode point : sizes) {
                    assertTrue(device[0] + ": no parameters in " + point, point.get(1).asLong() > 0);
                }
            }
            assertEquals(device[0] + ": live memory at the end of two identical runs", live[0], live[1]);
        }
    }

    private static final Pattern ROW = Pattern.compile("\\| (.{21}) \\| *(\\d+) (B|KiB|MiB|GiB|TiB) *\\|");

    /** The Cur Usage column of a summary row, in bytes; the summary's units are exact powers of 1024. */
    private static long current(String summary, String row) {
        for (String line : summary.lines().toList()) {
            Matcher m = ROW.matcher(line);
            if (m.find() && m.group(1).strip().equals(row)) {
                int shift = switch (m.group(3)) {
                    case "B" -> 0;
                    case "KiB" -> 10;
                    case "MiB" -> 20;
                    case "GiB" -> 30;
                    default -> 40;
                };
                return Long.parseLong(m.group(2)) << shift;
            }
        }
        throw new AssertionError("no row " + row + " in\n" + summary);
    }

    @Test
    public void theSnapshotAndTheSummaryWrittenTogetherGiveTheSameBytes() throws Exception {
        for (String[] device : new String[][] {{"npu", "NPU"}, {"spyre", "SPYRE"}, {"mps", "MPS"}}) {
            Path dir = tmp.newFolder("pair-" + device[0]).toPath();
            profile(device[0], device[1], dir);
            String summary = Files.readString(only(dir, "m-rank0-memory-\\d+\\.txt"));
            Map<?, ?> snapshot;
            try (InputStream in = Files.newInputStream(only(dir, "m-rank0-memory-\\d+\\.pickle"))) {
                snapshot = (Map<?, ?>) new Unpickler().load(in);
            }
            long allocated = 0;
            long requested = 0;
            long reserved = 0;
            int segments = 0;
            for (Object o : (List<?>) snapshot.get("segments")) {
                Map<?, ?> s = (Map<?, ?>) o;
                if (((Number) s.get("device")).intValue() != 0) {
                    continue;
                }
                allocated += ((Number) s.get("allocated_size")).longValue();
                requested += ((Number) s.get("requested_size")).longValue();
                reserved += ((Number) s.get("total_size")).longValue();
                segments++;
            }
            assertTrue(device[0] + ": no segment in the snapshot", segments > 0);
            assertEquals(device[0] + "\n" + summary, allocated, current(summary, "Allocated memory"));
            assertEquals(device[0] + "\n" + summary, requested, current(summary, "Requested memory"));
            assertEquals(device[0] + "\n" + summary, reserved, current(summary, device[1] + " reserved memory"));
        }
    }

    @Test
    public void fifteenHundredCpuStepsWithMemHaveExactRunningSums() throws Exception {
        Path dir = tmp.newFolder("long").toPath();
        LauncherProcess.Result r = LauncherProcess.run(FULL, "run", "mlp-train", "--steps", "1500", "--profile",
                "--profile-dir", dir.toString(), "--profile-name", "long", "--profile-activities", "CPU", "MEM",
                "--profile-wait", "0", "--profile-warmup", "0", "--profile-active", "1500");
        assertEquals(r.err(), 0, r.exitCode());
        // streamed: the trace is too large to hold as a tree comfortably
        long events = 0;
        long frees = 0;
        Long total = null;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(only(dir, "long\\.trace\\.json\\.gz")));
                JsonParser p = new JsonFactory().setCodec(new ObjectMapper()).createParser(in)) {
            while (p.nextToken() != null) {
                if (p.currentToken() == JsonToken.FIELD_NAME && p.currentName().equals("traceEvents")) {
                    p.nextToken();
                    while (p.nextToken() == JsonToken.START_OBJECT) {
                        JsonNode e = p.readValueAsTree();
                        if (!e.path("name").asText().equals("[memory]")) {
                            continue;
                        }
                        JsonNode a = e.get("args");
                        long bytes = a.get("Bytes").asLong();
                        long after = a.get("Total Allocated").asLong();
                        if (total != null) {
                            assertEquals("[memory] event " + events + ": " + e, total + bytes, after);
                        }
                        total = after;
                        frees += bytes < 0 ? 1 : 0;
                        events++;
                    }
                }
            }
        }
        assertTrue(events + " [memory] events", events > 1500 * 40);
        assertTrue(frees + " frees of " + events, frees > 1500 * 20);
    }
}
