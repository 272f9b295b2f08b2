package dev.vantage.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assume.assumeTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A served workload profiled three times without a restart, as the on-demand issue asks: by attaching with a
 * duration, by attaching with a number of iterations, and by dropping a configuration file with Kineto's keys into
 * the deploy directory. Each trace holds only its window, names its trigger, and reads like a {@code run} trace; a
 * second start while one runs is refused; another OS user cannot attach.
 */
public class OnDemandIT {

    private static final Path FULL = Distributions.home("full");
    private static final Pattern PID = Pattern.compile(", pid (\\d+);");

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    /** The trace's events, with the span its ProfilerStep annotations cover. */
    private record Window(JsonNode root, Set<String> steps, double start, double end) {
    }

    private static Window read(Path file) throws Exception {
        JsonNode root;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
            root = new ObjectMapper().readTree(in);
        }
        Set<String> steps = new TreeSet<>();
        double start = Double.MAX_VALUE;
        double end = -Double.MAX_VALUE;
        for (JsonNode e : root.get("traceEvents")) {
            if (e.path("name").asText().startsWith("ProfilerStep#")) {
                steps.add(e.get("name").asText());
                start = Math.min(start, e.get("ts").asDouble());
                end = Math.max(end, e.get("ts").asDouble() + e.get("dur").asDouble());
            }
        }
        // every op of the window lies inside its steps: nothing from before the start or after the stop
        for (JsonNode e : root.get("traceEvents")) {
            if (e.path("cat").asText().equals("cpu_op")) {
                double ts = e.get("ts").asDouble();
                assertTrue(file + ": " + e, ts >= start - 1 && ts + e.get("dur").asDouble() <= end + 1);
            }
        }
        return new Window(root, steps, start, end);
    }

    private static LauncherProcess.Result profile(long pid, String... args) throws Exception {
        String[] all = new String[args.length + 2];
        all[0] = "profile";
        all[1] = Long.toString(pid);
        System.arraycopy(args, 0, all, 2, args.length);
        return LauncherProcess.run(FULL, all);
    }

    @Test
    public void aServedWorkloadIsProfiledThreeTimesWithoutARestart() throws Exception {
        Path deploy = tmp.newFolder("deploy").toPath();
        Files.setPosixFilePermissions(deploy, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path out = tmp.newFolder("traces").toPath();
        try (LauncherProcess serve = LauncherProcess.start(FULL, "serve", "--workload", "parallel-infer",
                "--threads", "4", "--deploy-dir", deploy.toString())) {
            Matcher m = PID.matcher(serve.awaitLine("serving parallel-infer on cpu:0 with 4 threads"));
            assertTrue(m.find());
            long pid = Long.parseLong(m.group(1));

            // 1. attach, like jcmd, for two seconds
            LauncherProcess.Result r = profile(pid, "start", "--duration", "2s", "--dir", out.toString(), "--name",
                    "attach");
            assertEquals(r.err(), 0, r.exitCode());
            assertTrue(r.out(), r.out().contains("2000 ms"));
            serve.awaitLine("written: " + out.resolve("attach.trace.json.gz"));
            Window byTime = read(out.resolve("attach.trace.json.gz"));
            double seconds = (byTime.end() - byTime.start()) / 1e6;
            assertTrue("a 2 s window spans " + seconds + " s", seconds > 1.5 && seconds < 3.5);
            assertEquals("attach", byTime.root().get("vantage.trigger").asText());
            // who asked is what the platform saw (an attach from this machine); the client's own words are its claim
            String requestedBy = byTime.root().get("vantage.trigger.requested_by").asText();
            assertTrue(requestedBy, requestedBy.matches("an attached client from \\S+ \\(unauthenticated: only"
                    + " (user \\S+ or )?root can attach\\); the client says: pid \\d+ user \\S+"));

            // 2. attach for five whole steps
            r = profile(pid, "start", "--iterations", "5", "--dir", out.toString(), "--name", "steps");
            assertEquals(r.err(), 0, r.exitCode());
            serve.awaitLine("written: " + out.resolve("steps.trace.json.gz"));
            Window bySteps = read(out.resolve("steps.trace.json.gz"));
            assertEquals(5, bySteps.steps().size());

            // 3. a file dropped into the deploy directory, with Kineto's keys
            Files.writeString(deploy.resolve("dev.vantage.profiler.ondemand.cfg"), "ACTIVITIES_ITERATIONS=3\n"
                    + "ACTIVITIES_LOG_FILE=" + out.resolve("kineto.json") + "\n", StandardCharsets.UTF_8);
            serve.awaitLine("written: " + out.resolve("kineto.trace.json.gz"));
            Window byFile = read(out.resolve("kineto.trace.json.gz"));
            assertEquals(3, byFile.steps().size());
            assertEquals("config", byFile.root().get("vantage.trigger").asText());

            // one capture at a time; status and stop say what happens
            assertEquals(0, profile(pid, "start", "--dir", out.toString(), "--name", "open").exitCode());
            r = profile(pid, "start", "--duration", "1s");
            assertEquals(r.err(), 1, r.exitCode());
            assertTrue(r.err(), r.err().startsWith("vantage: a capture is already recording (until stopped, attach"));
            assertTrue(profile(pid, "status").out().startsWith("recording for "));
            r = profile(pid, "stop");
            assertEquals(r.err(), 0, r.exitCode());
            assertEquals(out.resolve("open.trace.json.gz").toString(), r.out().strip());
            assertTrue(Files.size(out.resolve("open.trace.json.gz")) > 0);

            // each capture added one line to the run registry of its directory, its id in its trace
            List<String> registry = Files.readAllLines(out.resolve("runs.jsonl"));
            assertEquals(4, registry.size());
            List<String> triggers = new java.util.ArrayList<>();
            for (String line : registry) {
                JsonNode run = new ObjectMapper().readTree(line);
                triggers.add(run.path("trigger").asText());
                Path trace = out.resolve(run.path("artifacts").get(0).path("path").asText());
                assertEquals(line, run.path("run_id").asText(), read(trace).root().path("vantage.run_id").asText());
            }
            assertEquals(List.of("attach", "attach", "config", "attach"), triggers);
            assertEquals(5, new ObjectMapper().readTree(registry.get(1)).path("steps").size());

            otherUsersCannotAttach(pid);
        }
    }

    @Test
    public void theGogoShellStartsAWindowThatARunsStepsFill() throws Exception {
        Path deploy = tmp.newFolder("shell-deploy").toPath();
        Files.setPosixFilePermissions(deploy, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path out = tmp.newFolder("shell-traces").toPath();
        try (LauncherProcess shell = LauncherProcess.start(FULL, "shell", "--deploy-dir", deploy.toString())) {
            shell.awaitLine("exporter registered: chrome");
            shell.send("profiler:start --iterations 2 --dir " + out + " --name gogo");
            shell.awaitLine("capture waiting for the next step: 2 steps");
            // a run marks its steps: the waiting capture records two of them
            shell.send("vantage:run matmul --steps 6");
            shell.awaitLine("written: " + out.resolve("gogo.trace.json.gz"));
            shell.send("profiler:status");
            shell.awaitLine("last capture: " + out.resolve("gogo.trace.json.gz"));
            shell.send("profiler:table --sort-by self_cpu_time_total --limit 5");
            shell.awaitLine("Self CPU time total");
            shell.send("profiler:stop");
            shell.awaitLine("profiler:stop: no capture is running; the last one wrote: " + out.resolve(
                    "gogo.trace.json.gz"));
            shell.send("stop 0");
            assertEquals(0, shell.awaitExit());
        }
        Window w = read(out.resolve("gogo.trace.json.gz"));
        assertEquals(2, w.steps().size());
        assertEquals("shell", w.root().get("vantage.trigger").asText());
    }

    /** Runs the client as user nobody (util-linux setpriv); skipped where that cannot be done. */
    private static void otherUsersCannotAttach(long pid) throws Exception {
        Path setpriv = Paths.get("/usr/bin/setpriv");
        assumeTrue("setpriv is needed to run the client as another user", Files.isExecutable(setpriv)
                && "root".equals(System.getProperty("user.name")));
        Process p = new ProcessBuilder(setpriv.toString(), "--reuid=65534", "--regid=65534", "--clear-groups",
                Paths.get(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                FULL.resolve("launcher.jar").toString(), "profile", Long.toString(pid), "status")
                .redirectErrorStream(true).start();
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertTrue("the client as nobody did not end", p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(said, 1, p.exitValue());
        assertEquals("vantage: process " + pid + " belongs to user root; only the same user can attach (the JDK"
                + " Attach API's rule)", said);
    }
}
