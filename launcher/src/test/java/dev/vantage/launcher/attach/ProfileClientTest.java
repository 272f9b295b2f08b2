package dev.vantage.launcher.attach;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.sun.tools.attach.VirtualMachine;

import dev.vantage.cli.Cli;
import dev.vantage.cli.LocalPlatforms;
import dev.vantage.cli.UsageException;

import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * Runs the attach client in this JVM against child JVMs started here ({@link FakePlatform}): a platform with the
 * profiler MBean, a platform without it, and a plain JVM.
 */
public class ProfileClientTest {

    private static final List<Process> children = new ArrayList<>();
    private static Process platform;
    private static Process noProfiler;
    private static Process plain;

    @BeforeClass
    public static void startChildren() throws Exception {
        platform = startChild("platform");
        noProfiler = startChild("no-profiler");
        plain = startChild("plain");
    }

    @AfterClass
    public static void stopChildren() throws Exception {
        for (Process p : children) {
            p.getOutputStream().close();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }

    /** Starts a FakePlatform JVM and returns once it has printed "ready". */
    private static Process startChild(String kind) throws Exception {
        Path classes = Path.of(FakePlatform.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "-cp", classes.toString(), FakePlatform.class.getName(), kind)
                .redirectErrorStream(true).start();
        children.add(p);
        BufferedReader lines = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        List<String> seen = new ArrayList<>();
        for (String line; (line = lines.readLine()) != null; ) {
            if (line.equals("ready")) {
                return p;
            }
            seen.add(line);
        }
        throw new AssertionError("child '" + kind + "' ended before it was ready: " + seen);
    }

    /** What one run of the client printed, and its exit code. */
    private record Result(int code, String out, String err) {
        List<String> options() {
            return out.lines().filter(l -> l.startsWith("option: ")).map(l -> l.substring(8)).toList();
        }
    }

    private static Result profile(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<String> line = new ArrayList<>();
        line.add("profile");
        line.addAll(Arrays.asList(args));
        int code;
        try {
            code = ProfileClient.run(Cli.parse(line, Map.of()), new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8));
        } catch (UsageException e) {
            throw new AssertionError("refused by the command line: " + e.getMessage());
        }
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    public void startsShowsAndStopsACaptureInTheRunningPlatform() {
        String pid = Long.toString(platform.pid());
        Result idle = profile(pid, "status");
        assertEquals(new Result(0, "no capture running\n", ""), idle);

        Result started = profile(pid, "start", "--duration", "1.5s", "--activities", "CPU", "NPU", "--export",
                "chrome,csv", "--dir", "target/attach-traces", "--name", "run1");
        assertEquals(started.err(), 0, started.code());
        assertTrue(started.out(), started.out().startsWith("capture started\n"));
        assertEquals(List.of("duration=1500", "activities=CPU,NPU", "export=chrome,csv",
                "dir=" + Path.of("target/attach-traces").toAbsolutePath().normalize(), "name=run1",
                "requested_by=pid " + ProcessHandle.current().pid() + " user " + System.getProperty("user.name")),
                started.options());

        Result running = profile(pid, "status");
        assertEquals(0, running.code());
        assertTrue(running.out(), running.out().startsWith("capturing\n"));
        assertEquals(started.options(), running.options());

        Result again = profile(pid, "start", "--iterations", "3");
        assertEquals(new Result(1, "", "vantage: a capture is already running: requested by requested_by=pid "
                + ProcessHandle.current().pid() + " user " + System.getProperty("user.name") + "\n"), again);

        assertEquals(new Result(0, "capture stopped\ntraces written: 0\n", ""), profile(pid, "stop"));
        assertEquals(new Result(1, "", "vantage: no capture is running\n"), profile(pid, "stop"));

        // an option the platform finds bad is a usage error, as the client's own are
        assertEquals(new Result(2, "", "vantage: unknown activity 'BOGUS'; activities: CPU, NPU\n"),
                profile(pid, "start", "--activities", "BOGUS"));

        // neither --duration nor --iterations: a capture until 'stop'
        Result untilStop = profile(pid, "start");
        assertEquals(0, untilStop.code());
        assertEquals(List.of("requested_by=pid " + ProcessHandle.current().pid() + " user "
                + System.getProperty("user.name")), untilStop.options());
        assertEquals(0, profile(pid, "stop").code());
    }

    @Test
    public void listShowsThePlatformsAndNoOtherJvm() {
        Result list = profile("--list");
        assertEquals(list.err(), 0, list.code());
        List<String> lines = list.out().lines().toList();
        assertTrue(list.out(), lines.contains(platform.pid() + "  test  serve  " + FakePlatform.class.getName()
                + " platform"));
        assertTrue(list.out(), lines.contains(noProfiler.pid() + "  test  serve  " + FakePlatform.class.getName()
                + " no-profiler"));
        assertFalse(list.out(), lines.stream().anyMatch(l -> l.startsWith(plain.pid() + " ")));
        assertFalse(list.out(), lines.stream().anyMatch(l -> l.startsWith(ProcessHandle.current().pid() + " ")));
    }

    @Test
    public void theBoardsServiceListsEachPlatformsCaptureWithoutStartingItsManagementAgent() throws Exception {
        Process fresh = startChild("platform");
        LocalPlatforms service = ProfileClient.service();
        List<LocalPlatforms.Platform> listed = service.list();
        assertTrue(listed.toString(), listed.contains(new LocalPlatforms.Platform(fresh.pid(), "test", "serve",
                FakePlatform.class.getName() + " platform", LocalPlatforms.Capture.IDLE)));
        assertTrue(listed.toString(), listed.stream().noneMatch(p -> p.pid() == ProcessHandle.current().pid()
                || p.pid() == plain.pid()));
        assertEquals(LocalPlatforms.Capture.UNAVAILABLE, service.platform(noProfiler.pid()).capture());
        assertEquals(LocalPlatforms.Capture.IDLE, service.platform(fresh.pid()).capture());
        // reading the state opened nothing in the platform: the JDK's local management agent is still off
        VirtualMachine vm = VirtualMachine.attach(Long.toString(fresh.pid()));
        try {
            assertNull(vm.getAgentProperties().getProperty("com.sun.management.jmxremote.localConnectorAddress"));
        } finally {
            vm.detach();
        }

        String started = service.start(fresh.pid(), List.of("duration=60000"));
        assertTrue(started, started.contains("option: requested_by=pid " + ProcessHandle.current().pid()));
        assertTrue(started, started.endsWith("(vantage board)"));
        assertEquals(LocalPlatforms.Capture.RECORDING, service.platform(fresh.pid()).capture());
        assertEquals("capture stopped\ntraces written: 0", service.stop(fresh.pid()));
        assertEquals(LocalPlatforms.Capture.IDLE, service.platform(fresh.pid()).capture());
        try {
            service.stop(fresh.pid());
            fail("stopped twice");
        } catch (LocalPlatforms.Refused e) {
            assertEquals("no capture is running", e.getMessage());
            assertEquals(1, e.exitCode);
        }
        try {
            service.platform(plain.pid());
            fail("a plain JVM is not a platform");
        } catch (LocalPlatforms.Refused e) {
            assertTrue(e.getMessage(), e.getMessage().contains("is not a Vantage platform"));
        }
    }

    @Test
    public void refusesAJvmThatIsNotAVantagePlatform() {
        assertEquals(new Result(1, "", "vantage: process " + plain.pid() + " is not a Vantage platform (its command: "
                + FakePlatform.class.getName() + " plain)\n"), profile(Long.toString(plain.pid()), "status"));
    }

    @Test
    public void refusesAPlatformWhoseProfilerCoreIsNotRunning() {
        assertEquals(new Result(1, "", "vantage: the platform in process " + noProfiler.pid() + " has no on-demand"
                + " profiler (its profiler core is not running)\n"),
                profile(Long.toString(noProfiler.pid()), "start", "--duration", "2s"));
    }

    @Test
    public void refusesAProcessThatIsGone() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        assertEquals(new Result(1, "", "vantage: no process " + gone.pid() + "\n"),
                profile(Long.toString(gone.pid()), "stop"));
    }

    @Test
    public void refusesAProcessThatIsNotAJvmWithoutSignallingIt() throws Exception {
        // the Attach API would send SIGQUIT, which ends a process that is not a JVM: cat must survive
        Process cat = new ProcessBuilder("cat").start();
        try {
            Result r = profile(Long.toString(cat.pid()), "status");
            assertEquals(1, r.code());
            assertTrue(r.err(), r.err().startsWith("vantage: process " + cat.pid() + " is not a Vantage platform"
                    + " (its command: "));
            assertTrue(r.err(), r.err().endsWith("cat)\n"));
            assertTrue(cat.isAlive());
        } finally {
            cat.getOutputStream().close();
            if (!cat.waitFor(10, TimeUnit.SECONDS)) {
                cat.destroyForcibly();
                fail("cat did not end when its input closed");
            }
        }
    }

    @Test
    public void namesTheOwnerWhenTheProcessIsAnotherUsers() {
        assertEquals("process 4242 belongs to user nobody; only the same user can attach (the JDK Attach API's"
                + " rule)", ProfileClient.otherUserMessage(4242, "nobody"));
        // this process and its children are this user's
        assertNull(ProfileClient.foreignOwner(ProcessHandle.current()));
        assertNull(ProfileClient.foreignOwner(platform.toHandle()));
    }
}
