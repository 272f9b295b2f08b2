package dev.vantage.exporter.files.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;
import static org.junit.Assume.assumeTrue;

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
                        // the next cycle's trace went into the same run directory: its files are listed once
                        new RunRecord.Artifact(board, "tensorboard"),
                        new RunRecord.Artifact(dir.resolve("failed.csv"), "csv"),
                        new RunRecord.Artifact(elsewhere, "memory-snapshot")));
        List<RunLog.WrittenFile> files = RunLog.artifacts(dir, run);
        assertEquals(List.of(
                new RunLog.WrittenFile("m.trace.json.gz", "chrome", 3,
                        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
                new RunLog.WrittenFile("board/" + ours.getFileName(), "tensorboard", Files.size(ours),
                        RunRecord.sha256(ours)),
                new RunLog.WrittenFile(elsewhere.toString(), "memory-snapshot", 0,
                        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")), files);
    }

    /** A disk with {@code free} bytes left: writes beyond them fail as a full file system does. */
    private static RunLog.Disk diskWith(long free) {
        long[] left = {free};
        return (channel, from, at) -> {
            if (left[0] <= 0) {
                throw new java.io.IOException("No space left on device");
            }
            int n = (int) Math.min(left[0], from.remaining());
            java.nio.ByteBuffer part = from.slice(from.position(), n);
            int written = channel.write(part, at);
            from.position(from.position() + written);
            left[0] -= written;
            return written;
        };
    }

    @Test
    public void aFullDiskLeavesEveryEarlierLineIntactAndNoPartOfTheNewOne() throws Exception {
        Path dir = tmp.newFolder("profiles").toPath();
        Path file = dir.resolve(RunLog.FILE_NAME);
        RunLog.append(dir, record("w", 1, 100), Map.of(), List.of());
        RunLog.append(dir, record("w", 2, 100), Map.of(), List.of());
        byte[] before = Files.readAllBytes(file);
        RunLog.Disk real = RunLog.disk;
        RunLog.disk = diskWith(9_000);   // a 9 KB part of the next line fits, as on the 1 MB tmpfs
        try {
            java.io.IOException e = assertThrows(java.io.IOException.class,
                    () -> RunLog.append(dir, record("w", 3, 50_000), Map.of(), List.of()));
            assertEquals("No space left on device", e.getMessage());
        } finally {
            RunLog.disk = real;
        }
        assertTrue("the registry is as it was", java.util.Arrays.equals(before, Files.readAllBytes(file)));
        // the next run's line starts a line of its own, and every line parses
        RunLog.append(dir, record("w", 4, 100), Map.of(), List.of());
        List<String> lines = Files.readAllLines(file);
        assertEquals(3, lines.size());
        for (String line : lines) {
            JSON.readTree(line);
        }
        assertEquals(4, JSON.readTree(lines.get(2)).path("configuration").path("sequence").asInt());
    }

    @Test
    public void aFullDiskLeavesNoRegistryWhenThereWasNone() throws Exception {
        Path dir = tmp.newFolder("profiles").toPath();
        RunLog.Disk real = RunLog.disk;
        RunLog.disk = diskWith(0);
        try {
            assertThrows(java.io.IOException.class, () -> RunLog.append(dir, record("w", 1, 10), Map.of(), List.of()));
        } finally {
            RunLog.disk = real;
        }
        try (java.util.stream.Stream<Path> left = Files.list(dir)) {
            assertEquals("no empty runs.jsonl, no temporary file", List.of(), left.toList());
        }
    }

    @Test
    public void aRegistryThatIsASymbolicLinkIsRefusedAndWhatItPointsToIsUntouched() throws Exception {
        Path dir = tmp.newFolder("profiles").toPath();
        Path victim = tmp.newFile("victim").toPath();
        Files.writeString(victim, "precious\n");
        Files.createSymbolicLink(dir.resolve(RunLog.FILE_NAME), victim);
        java.io.IOException e = assertThrows(java.io.IOException.class,
                () -> RunLog.append(dir, record("w", 1, 10), Map.of(), List.of()));
        assertTrue(e.getMessage(), e.getMessage().contains("runs.jsonl is a symbolic link (to " + victim + ")"));
        assertEquals("precious\n", Files.readString(victim));
        // a dangling link is no way around it either
        Files.delete(victim);
        assertThrows(java.io.IOException.class, () -> RunLog.append(dir, record("w", 2, 10), Map.of(), List.of()));
        assertFalse(Files.exists(victim));
    }

    @Test
    public void aRegistryOfAnotherUserIsRefused() throws Exception {
        Path dir = tmp.newFolder("profiles").toPath();
        Path file = dir.resolve(RunLog.FILE_NAME);
        Files.writeString(file, "");
        try {
            Files.setAttribute(file, "unix:uid", 65534);
        } catch (java.io.IOException | UnsupportedOperationException e) {
            assumeTrue("cannot give a file to another user here (not root): " + e, false);
        }
        java.io.IOException e = assertThrows(java.io.IOException.class,
                () -> RunLog.append(dir, record("w", 1, 10), Map.of(), List.of()));
        assertTrue(e.getMessage(), e.getMessage().contains("runs.jsonl belongs to "));
        assertEquals(0, Files.size(file));
    }

    /**
     * On a real small file system (a 64 KiB tmpfs, mounted in a mount namespace of its own where the machine allows
     * it): the first line that does not fit leaves no registry, and lines appended until the disk is full leave a
     * registry of whole lines only.
     */
    @Test(timeout = 120_000)
    public void onARealFullTmpfsTheRegistryHoldsWholeLinesOnly() throws Exception {
        Path mount = tmp.newFolder("tmpfs").toPath();
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        Process p;
        try {
            // the class name has a '$', so it goes in as an argument of the script, as every other value does
            p = new ProcessBuilder("unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs \"$0\" && exec \"$1\""
                    + " -cp \"$2\" \"$3\" \"$0\"", mount.toString(), java, System.getProperty("java.class.path"),
                    FullTmpfs.class.getName()).redirectErrorStream(true).start();
        } catch (java.io.IOException e) {
            assumeTrue("no unshare here: " + e, false);
            return;
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        assumeTrue("no tmpfs in a mount namespace here: " + out, !out.contains("mount:") && !out.contains("unshare:"));
        assertTrue(out, out.contains("RESULT ok"));
    }

    /** Runs inside the small tmpfs; prints {@code RESULT ok <lines>} or {@code RESULT fail <why>}. */
    public static final class FullTmpfs {
        public static void main(String[] args) throws Exception {
            Path dir = Paths.get(args[0]);
            Path file = dir.resolve(RunLog.FILE_NAME);
            try {
                RunLog.append(dir, record("w", 0, 200_000), Map.of(), List.of());
                System.out.println("RESULT fail a 200 KB line fitted into 64 KiB");
                return;
            } catch (java.io.IOException expected) {
                // the disk is too small for it
            }
            try (java.util.stream.Stream<Path> left = Files.list(dir)) {
                List<Path> files = left.toList();
                if (!files.isEmpty()) {
                    System.out.println("RESULT fail left " + files);
                    return;
                }
            }
            int appended = 0;
            try {
                for (int i = 1; i < 1_000; i++) {
                    RunLog.append(dir, record("w", i, 3_000), Map.of(), List.of());
                    appended++;
                }
                System.out.println("RESULT fail the disk never filled");
                return;
            } catch (java.io.IOException full) {
                // the disk is full now
            }
            byte[] bytes = Files.readAllBytes(file);
            List<String> lines = Files.readAllLines(file);
            if (bytes.length == 0 || bytes[bytes.length - 1] != '\n' || lines.size() != appended) {
                System.out.println("RESULT fail " + lines.size() + " lines for " + appended + " appended");
                return;
            }
            for (String line : lines) {
                JSON.readTree(line);
            }
            System.out.println("RESULT ok " + appended);
        }
    }
}
