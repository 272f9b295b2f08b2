package dev.vantage.launcher.assemble;

import static org.junit.Assert.assertEquals;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The shell functions both vantage scripts start java with: the client compiler alone for a verb that reads traces
 * and has at most 64 MiB to read, the JVM's default otherwise; the resident process's client for those verbs when
 * {@code VANTAGE_DAEMON=1}. Run by bash, as the scripts run them.
 */
public class JitChoiceTest {

    private static final String C1 = "-XX:TieredStopAtLevel=1";

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Test
    public void aSmallInputRunsOnTheClientCompilerALargeOneOnTheDefault() throws Exception {
        Path small = sized("small.json", 15 << 20);
        Path large = sized("large.json", 65 << 20);
        Path smallGz = sized("rank-0.json.gz", 7 << 20);
        Path largeGz = sized("rank-1.json.gz", 9 << 20);
        Path folder = Files.createDirectories(tmp.getRoot().toPath().resolve("ranks"));
        Files.writeString(folder.resolve("rank-0.json"), "{\"traceEvents\": []}");
        assertEquals(C1, jit("analyze", small.toString(), "--analysis", "idle", "--format", "csv"));
        assertEquals(C1, jit("report", smallGz.toString(), "-o", "r.html"));
        assertEquals(C1, jit("merge", folder.toString(), "-o", "job.json"));
        assertEquals("", jit("analyze", large.toString()));
        assertEquals("eight times a .gz's size", "", jit("analyze", largeGz.toString()));
        assertEquals("the inputs summed", "", jit("compare", small.toString(), sized("b.json", 50 << 20).toString()));
        assertEquals("not a verb that reads traces", "", jit("run", "matmul", small.toString()));
        assertEquals("nothing to read: the verb refuses", "", jit("analyze", "/nonexistent/trace.json"));
        assertEquals("", jit());
    }

    @Test
    public void withVantageDaemonTheVerbsThatReadTracesGoToTheResidentProcess() throws Exception {
        for (String verb : List.of("analyze", "report", "compare", "merge", "convert", "runs")) {
            assertEquals(verb, "yes", daemon("1", verb, "trace.json"));
            assertEquals(verb + " without VANTAGE_DAEMON", "no", daemon("", verb, "trace.json"));
        }
        assertEquals("only 1 turns it on", "no", daemon("true", "analyze", "trace.json"));
        for (String verb : List.of("run", "board", "daemon", "profile", "launch", "--help", "")) {
            assertEquals(verb, "no", daemon("1", verb));
        }
    }

    /** Whether daemon.sh's vantage_daemon_verb sends a command line to the resident process. */
    private static String daemon(String enabled, String... args) throws Exception {
        Path script = Files.createTempFile("daemon", ".sh");
        try (var in = Assemble.class.getResourceAsStream("daemon.sh")) {
            Files.write(script, in.readAllBytes());
        }
        List<String> command = new ArrayList<>(List.of("bash", "-c",
                "set -euo pipefail; . \"$0\"; if vantage_daemon_verb \"$@\"; then echo yes; else echo no; fi",
                script.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("VANTAGE_DAEMON", enabled);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertEquals(out, 0, p.waitFor());
        Files.delete(script);
        return out;
    }

    /** A file of a size, sparse: its length is what counts. */
    private Path sized(String name, long bytes) throws IOException {
        Path file = tmp.getRoot().toPath().resolve(name);
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(bytes);
        }
        return file;
    }

    private static String jit(String... args) throws Exception {
        Path script = Files.createTempFile("jit", ".sh");
        try (var in = Assemble.class.getResourceAsStream("jit.sh")) {
            Files.write(script, in.readAllBytes());
        }
        List<String> command = new ArrayList<>(List.of("bash", "-c",
                "set -euo pipefail; . \"$0\"; vantage_jit \"$@\"", script.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertEquals(out, 0, p.waitFor());
        Files.delete(script);
        return out;
    }
}
