package dev.vantage.exporter.files.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.vantage.profiler.api.RunRecord;

public class RunLogTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    /** A run of a writer: its id, and a configuration padded to a size no single small write covers. */
    static RunRecord record(String writer, int sequence, int padding) {
        long start = 1_700_000_000_000_000_000L + sequence;
        return new RunRecord(RunRecord.newId(), null, null, null, "run", "ok", start, start + 1_000,
                List.of("vantage", "run", "matmul"), Map.of("writer", writer, "sequence", sequence,
                        "padding", "x".repeat(padding)), List.of(new RunRecord.Device("cpu", false, null)),
                List.of(), List.of());
    }

    /** Appends {@code count} runs of writer {@code args[1]} to the registry in {@code args[0]}: one writer process. */
    public static void main(String[] args) throws Exception {
        Path dir = Paths.get(args[0]);
        for (int i = 0; i < Integer.parseInt(args[2]); i++) {
            RunLog.append(dir, record(args[1], i, 200_000), Map.of(), List.of());
        }
    }

    @Test
    public void linesOfConcurrentProcessesAndThreadsNeverInterleave() throws Exception {
        Path dir = tmp.newFolder("profiles").toPath();
        int processes = 3;
        int threads = 3;
        int each = 8;
        List<Process> started = new ArrayList<>();
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        for (int p = 0; p < processes; p++) {
            started.add(new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                    RunLogTest.class.getName(), dir.toString(), "process" + p, Integer.toString(each))
                    .redirectErrorStream(true).start());
        }
        List<Thread> writers = new ArrayList<>();
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < threads; t++) {
            String name = "thread" + t;
            Thread w = new Thread(() -> {
                try {
                    for (int i = 0; i < each; i++) {
                        RunLog.append(dir, record(name, i, 200_000), Map.of(), List.of());
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            });
            writers.add(w);
            w.start();
        }
        for (Thread w : writers) {
            w.join();
        }
        for (Process p : started) {
            assertTrue("a writer process did not finish", p.waitFor(120, TimeUnit.SECONDS));
            assertEquals(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8), 0, p.exitValue());
        }
        assertEquals(List.of(), failures);
        List<String> lines = Files.readAllLines(dir.resolve(RunLog.FILE_NAME));
        assertEquals((processes + threads) * each, lines.size());
        Set<String> seen = new HashSet<>();
        for (String line : lines) {
            JsonNode run = JSON.readTree(line);
            JsonNode c = run.path("configuration");
            assertEquals(200_000, c.path("padding").asText().length());
            assertTrue(line.substring(0, 80), seen.add(c.path("writer").asText() + "/" + c.path("sequence").asInt()));
        }
    }

    @Test
    public void aLineADeadWriterLeftOpenIsEndedBeforeTheNextOne() throws Exception {
        Path dir = tmp.newFolder("profiles").toPath();
        Path file = dir.resolve(RunLog.FILE_NAME);
        Files.writeString(file, "{\"run_id\":\"half");
        RunRecord run = record("w", 1, 10);
        RunLog.append(dir, run, Map.of(), List.of());
        List<String> lines = Files.readAllLines(file);
        assertEquals(2, lines.size());
        assertEquals("{\"run_id\":\"half", lines.get(0));
        assertEquals(run.runId(), JSON.readTree(lines.get(1)).path("run_id").asText());
    }

    @Test
    public void artifactsAreSizedHashedAndRelativeAndAFolderGivesTheFilesThisProcessWroteSinceTheStart()
            throws Exception {
        Path dir = tmp.newFolder("profiles").toPath();
        Path trace = dir.resolve("m.trace.json.gz");
        Files.writeString(trace, "abc");
        Path board = Files.createDirectories(dir.resolve("board"));
        long pid = ProcessHandle.current().pid();
        Path ours = board.resolve("host_" + pid + ".1.pt.trace.json.gz");
        Path otherRank = board.resolve("host_" + (pid + 100_000) + ".1.pt.trace.json.gz");
        Path earlier = board.resolve("host_" + pid + ".0.pt.trace.json.gz");
        for (Path p : List.of(ours, otherRank, earlier)) {
            Files.writeString(p, p.getFileName().toString());
        }
        long start = System.currentTimeMillis() * 1_000_000;
        Files.setLastModifiedTime(earlier, FileTime.fromMillis(start / 1_000_000 - 60_000));
        Path elsewhere = tmp.newFile("snapshot.json").toPath();
        RunRecord run = new RunRecord(RunRecord.newId(), null, null, null, "run", "ok", start, start,
                List.of(), Map.of(), List.of(), List.of(), List.of(new RunRecord.Artifact(trace, "chrome"),
                        new RunRecord.Artifact(board, "tensorboard"),
                        new RunRecord.Artifact(dir.resolve("failed.csv"), "csv"),
                        new RunRecord.Artifact(elsewhere, "memory-snapshot")));
        List<RunLog.WrittenFile> files = RunLog.artifacts(dir, run);
        assertEquals(List.of(
                new RunLog.WrittenFile("m.trace.json.gz", "chrome", 3,
                        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
                new RunLog.WrittenFile("board/" + ours.getFileName(), "tensorboard", Files.size(ours),
                        RunLog.sha256(ours)),
                new RunLog.WrittenFile(elsewhere.toString(), "memory-snapshot", 0,
                        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")), files);
    }
}
