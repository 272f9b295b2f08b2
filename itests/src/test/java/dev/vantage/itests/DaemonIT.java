package dev.vantage.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * {@code VANTAGE_DAEMON=1}: the repository's {@code vantage} script sends the analysis verbs to a resident process,
 * as a user runs them from a folder of their own, and the answers are those of a call in its own JVM: the same output,
 * refusals and exit codes, relative paths meaning the caller's folder. The first call runs in its own JVM and leaves
 * a process starting for the next; {@code vantage daemon} starts, lists and stops the process, which also ends by
 * itself when idle.
 */
public class DaemonIT {

    private static final Path SCRIPT = Paths.get("..", "vantage").toAbsolutePath().normalize();

    /** HTA's nanosecond-resolution test trace (MIT licence), the one the analyses' tests check against HTA. */
    private static final Path TRACE = Paths.get("..", "bundles", "trace-engine", "src", "test", "resources", "dev",
            "vantage", "trace", "engine", "device", "hta", "ns_resolution",
            "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz").toAbsolutePath().normalize();

    private static final Pattern PID = Pattern.compile(
            "^pid (\\d+)  (\\S+)  up .*, (\\d+) calls, heap \\d+ of \\d+ MB$");

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private LauncherProcess.Result vantage(Path cwd, Map<String, String> env, String args) throws Exception {
        try (LauncherProcess p = LauncherProcess.bash(cwd, env, "'" + SCRIPT + "' " + args)) {
            int code = p.awaitExit(180);
            return new LauncherProcess.Result(code, p.out(), p.err());
        }
    }

    /** Runs {@code vantage daemon ...} and returns its one status line, matched: pid, folder, calls. */
    private Matcher status(Path cwd, Map<String, String> env, String args) throws Exception {
        LauncherProcess.Result r = vantage(cwd, env, args);
        assertEquals(r.err(), 0, r.exitCode());
        Matcher m = PID.matcher(r.out().strip());
        assertTrue(r.out(), m.matches());
        return m;
    }

    /** The sockets in the processes' folder. */
    private static List<Path> sockets(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.toString().endsWith(".sock")).toList();
        }
    }

    private Map<String, String> daemon(Path dir, String idleSeconds) {
        Map<String, String> env = new HashMap<>();
        env.put("VANTAGE_DAEMON", "1");
        env.put("VANTAGE_DAEMON_DIR", dir.toString());
        env.put("VANTAGE_DAEMON_IDLE", idleSeconds);
        return env;
    }

    @Test
    public void analysisCallsRunInOneResidentProcessAndAnswerAsACallInItsOwnJvm() throws Exception {
        Path cwd = tmp.newFolder("work").toPath();
        Files.createDirectories(cwd.resolve("traces"));
        Files.copy(TRACE, cwd.resolve("traces/ns.json.gz"));
        Path dir = tmp.getRoot().toPath().resolve("daemons");
        Map<String, String> env = daemon(dir, "300");
        String analyze = "analyze traces/ns.json.gz --analysis idle,launch --format csv";

        LauncherProcess.Result direct = vantage(cwd, Map.of("VANTAGE_DAEMON_DIR", dir.toString()), analyze);
        assertEquals(direct.err(), 0, direct.exitCode());
        assertTrue(direct.out(), direct.out().contains("# launch"));
        status(cwd, env, "daemon start");
        for (int call = 0; call < 2; call++) {
            LauncherProcess.Result resident = vantage(cwd, env, analyze);
            assertEquals(resident.err(), 0, resident.exitCode());
            assertEquals("call " + call, direct.out(), resident.out());
            assertEquals(direct.err(), resident.err());
        }
        // a relative output path is the caller's folder's
        LauncherProcess.Result written = vantage(cwd, env,
                "analyze traces/ns.json.gz --analysis temporal --format json -o temporal.json");
        assertEquals(written.err(), 0, written.exitCode());
        assertTrue(Files.readString(cwd.resolve("temporal.json")).contains("idle_time"));
        // a refusal is the launcher's: one line, exit 2
        LauncherProcess.Result refused = vantage(cwd, env, "analyze traces/ns.json.gz --analysis nope");
        LauncherProcess.Result refusedHere = vantage(cwd, Map.of(), "analyze traces/ns.json.gz --analysis nope");
        assertEquals(2, refused.exitCode());
        assertEquals(refusedHere.err(), refused.err());
        assertEquals(1, refused.err().strip().lines().count());

        Matcher m = status(cwd, env, "daemon");
        assertEquals("the caller's folder", cwd.toRealPath().toString(), m.group(2));
        assertEquals("four calls, one process", "4", m.group(3));
        ProcessHandle process = ProcessHandle.of(Long.parseLong(m.group(1))).orElseThrow();

        LauncherProcess.Result stopped = vantage(cwd, env, "daemon stop");
        assertTrue(stopped.out(), stopped.out().strip().endsWith(": stopped"));
        process.onExit().get(60, TimeUnit.SECONDS);
        assertEquals("its socket is gone", List.of(), sockets(dir));
        LauncherProcess.Result none = vantage(cwd, env, "daemon");
        assertTrue(none.out(), none.out().startsWith("no resident analysis process is running"));
    }

    @Test
    public void theFirstCallRunsInItsOwnJvmAndLeavesAProcessForTheNext() throws Exception {
        Path cwd = tmp.newFolder("first").toPath();
        Files.copy(TRACE, cwd.resolve("ns.json.gz"));
        Path dir = tmp.getRoot().toPath().resolve("first-daemons");
        Map<String, String> env = daemon(dir, "300");
        String analyze = "analyze ns.json.gz --analysis temporal --format csv";
        LauncherProcess.Result direct = vantage(cwd, Map.of(), analyze);
        LauncherProcess.Result first = vantage(cwd, env, analyze);
        assertEquals(first.err(), 0, first.exitCode());
        assertEquals(direct.out(), first.out());
        assertEquals("nothing said", direct.err(), first.err());
        // the process the first call started (waited for here, not started again) has run no call
        Matcher m = status(cwd, env, "daemon start");
        assertEquals("0", m.group(3));
        assertEquals("one process", 1, sockets(dir).size());
        LauncherProcess.Result second = vantage(cwd, env, analyze);
        assertEquals(direct.out(), second.out());
        Matcher after = status(cwd, env, "daemon");
        assertEquals(m.group(1), after.group(1));
        assertEquals("the second call ran in it", "1", after.group(3));
        ProcessHandle process = ProcessHandle.of(Long.parseLong(m.group(1))).orElseThrow();
        vantage(cwd, env, "daemon stop");
        process.onExit().get(60, TimeUnit.SECONDS);
    }

    @Test
    public void aResidentProcessWithoutCallsEndsAfterItsIdleTime() throws Exception {
        Path cwd = tmp.newFolder("idle").toPath();
        Files.copy(TRACE, cwd.resolve("ns.json.gz"));
        Path dir = tmp.getRoot().toPath().resolve("idle-daemons");
        Map<String, String> env = daemon(dir, "3");
        Matcher m = status(cwd, env, "daemon start");
        ProcessHandle process = ProcessHandle.of(Long.parseLong(m.group(1))).orElseThrow();
        process.onExit().get(60, TimeUnit.SECONDS);
        assertTrue(vantage(cwd, env, "daemon").out().startsWith("no resident analysis process is running"));
        // before its idle time began, it analysed its made-up trace with the distribution's analysis library
        String log;
        try (Stream<Path> files = Files.list(dir)) {
            log = Files.readString(files.filter(f -> f.toString().endsWith(".log")).findFirst().orElseThrow());
        }
        assertTrue(log, log.contains("vantage daemon: warmed up, 12 rounds in "));
        assertTrue(log, log.contains("ends after 0 calls"));
    }
}
