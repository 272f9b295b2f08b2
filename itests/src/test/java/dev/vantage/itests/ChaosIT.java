package dev.vantage.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The faults of issue 28 as a user meets them, each through the launcher in a JVM of its own: runs started together
 * into one directory, a registry that is a symbolic link, a configuration file that forges its provenance, and a
 * device whose stream workers die of an exhausted heap. The longer versions (8 concurrent runs, more heaps, a
 * 1,500-step MEM run) are in {@code .ci/chaos}. A full disk is simulated in exporter-files' RunLogTest (and a real
 * small tmpfs where the machine lets a test mount one); a dying worker of every emulated device in device-contract's
 * DyingWorkerTest.
 */
public class ChaosIT {

    private static final Path FULL = Distributions.home("full");
    private static final ObjectMapper JSON = new ObjectMapper();

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Test
    public void runsStartedTogetherIntoOneDirectoryKeepEveryTraceAndEveryLineVerifies() throws Exception {
        Path dir = tmp.newFolder("profiles").toPath();
        int runs = 4;
        List<LauncherProcess> started = new ArrayList<>();
        try {
            for (int i = 0; i < runs; i++) {
                started.add(LauncherProcess.start(FULL, "run", "matmul", "--steps", "2", "--profile",
                        "--profile-dir", dir.toString()));
            }
            for (LauncherProcess p : started) {
                assertEquals(p.output(), 0, p.awaitExit());
            }
        } finally {
            for (LauncherProcess p : started) {
                p.close();
            }
        }
        List<String> lines = Files.readAllLines(dir.resolve("runs.jsonl"), StandardCharsets.UTF_8);
        assertEquals(lines.toString(), runs, lines.size());
        Set<String> traces = new HashSet<>();
        for (String line : lines) {
            JsonNode run = JSON.readTree(line);
            for (JsonNode a : run.path("artifacts")) {
                Path file = dir.resolve(a.path("path").asText());
                byte[] bytes = Files.readAllBytes(file);
                assertEquals(a.toString(), a.path("sha256").asText(),
                        HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes)));
                if (a.path("kind").asText().equals("chrome")) {
                    assertTrue("one trace per run: " + lines, traces.add(a.path("path").asText()));
                }
            }
        }
        assertEquals(runs, traces.size());
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(runs, files.filter(f -> f.getFileName().toString().endsWith(".trace.json.gz")).count());
        }
        LauncherProcess.Result listed = LauncherProcess.run(FULL, "runs", "--dir", dir.toString());
        assertEquals(listed.err(), 0, listed.exitCode());
    }

    @Test
    public void aRegistryThatIsASymbolicLinkIsRefusedBeforeAnyWork() throws Exception {
        Path dir = tmp.newFolder("linked").toPath();
        Path victim = Files.writeString(tmp.getRoot().toPath().resolve("victim"), "mine\n");
        Files.createSymbolicLink(dir.resolve("runs.jsonl"), victim);
        String line = LauncherProcess.refused(FULL, "run", "matmul", "--steps", "1", "--profile", "--profile-dir",
                dir.toString());
        assertTrue(line, line.contains("runs.jsonl") && line.contains("link"));
        assertEquals("mine\n", Files.readString(victim));
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals("nothing written beside the link", 1, files.count());
        }
    }

    @Test
    public void aConfigurationFileCannotForgeWhereACaptureCameFrom() throws Exception {
        Path deploy = tmp.newFolder("deploy").toPath();
        Path traces = tmp.newFolder("traces").toPath();
        try (LauncherProcess serve = LauncherProcess.start(FULL, "serve", "--workload", "matmul", "--deploy-dir",
                deploy.toString())) {
            serve.awaitLine("platform up");
            Files.writeString(deploy.resolve("dev.vantage.profiler.ondemand.cfg"), "iterations=2\ndir=" + traces
                    + "\ntrigger=attach\nrequested_by=pid 1 user alice\n");
            String line = serve.awaitLine("dev.vantage.profiler.ondemand.cfg");
            assertTrue(line, line.contains("did not start") && line.contains("cannot set it"));

            // an on-demand capture into a file, not a directory: refused before it starts
            String pid = serve.output().replaceFirst("(?s).*, pid (\\d+);.*", "$1");
            Path file = Files.writeString(tmp.getRoot().toPath().resolve("a-file"), "");
            String refused = LauncherProcess.refused(FULL, "profile", pid, "start", "--dir", file.toString(),
                    "--duration", "2s");
            assertEquals("vantage: --dir " + file + ": not a directory", refused);
        }
        try (Stream<Path> files = Files.list(traces)) {
            assertEquals("no capture", 0, files.count());
        }
    }

    @Test
    public void aMemorySnapshotUnderAFileIsRefusedAndLeavesNoProfileDirectory() throws Exception {
        Path cwd = tmp.newFolder("cwd").toPath();
        Path file = Files.writeString(cwd.resolve("a-file"), "");
        try (LauncherProcess p = LauncherProcess.bash(cwd, java.util.Map.of(), "exec '"
                + Path.of(System.getProperty("java.home"), "bin", "java") + "' -jar '" + FULL.resolve("launcher.jar")
                + "' run mlp-train --device npu --steps 1 --profile --memory-snapshot " + file + "/x.json")) {
            int code = p.awaitExit(60);
            assertEquals(p.output(), 2, code);
            assertEquals("vantage: --memory-snapshot " + file + "/x.json: no directory " + file,
                    p.output().strip());
        }
        try (Stream<Path> files = Files.list(cwd)) {
            assertEquals("no vantage_profiles/ left behind", List.of(file), files.toList());
        }
    }

    @Test
    public void deviceStreamsDyingOfAnExhaustedHeapEndTheRunWithOneLine() throws Exception {
        Path dir = tmp.newFolder("oom").toPath();
        LauncherProcess.Result r;
        // the MPS stream workers ask for more than the heap at their 20th piece of work: the JVM's own
        // OutOfMemoryError in a worker, every run. The heap is large enough for the run itself: in 32 MB the
        // platform's other threads (FileInstall's) ran out too, a second line in some runs
        try (LauncherProcess p = LauncherProcess.start(FULL, List.of("-Xmx256m",
                "-Dvantage.emulation.exhaustHeapAfter=20"), "run", "parallel-infer",
                "--device", "mps", "--threads", "8", "--steps", "200", "--profile", "--profile-activities", "CPU",
                "MPS", "MEM", "--profile-active", "200", "--profile-warmup", "0", "--profile-dir", dir.toString())) {
            int code = p.awaitExit();
            r = new LauncherProcess.Result(code, "", p.output());
        }
        assertEquals(r.err(), 1, r.exitCode());
        List<String> said = r.err().lines().filter(l -> l.startsWith("vantage: ")).toList();
        assertEquals(r.err(), 1, said.size());
        assertTrue(said.get(0), said.get(0).contains("out of memory"));
        assertFalse("no stack trace: " + r.err(), r.err().lines().anyMatch(l -> l.startsWith("\tat ")
                || l.startsWith("Exception in thread")));
    }
}
