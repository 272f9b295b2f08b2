package dev.vantage.launcher.ranks;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import dev.vantage.cli.Cli;
import dev.vantage.cli.LaunchCommand;
import dev.vantage.cli.UsageException;
import dev.vantage.launcher.LaunchException;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Supervises real child JVMs ({@link LaunchChild}) with the launch machinery and no platform: the rank command is
 * injected. Every launch is awaited with a time limit, so a launcher that hangs fails the test instead.
 */
public class LaunchTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private static final long LIMIT_SECONDS = 60;
    private static final Pattern PREFIXED = Pattern.compile("\\[rank(\\d+)\\]: (.*)");

    /** What one launch printed and returned. */
    private record Outcome(int code, List<String> out, List<String> err, List<Process> processes) {

        /** Returns the text of rank {@code rank}'s lines in {@code lines}, without the prefix. */
        List<String> of(List<String> lines, int rank) {
            List<String> mine = new ArrayList<>();
            for (String line : lines) {
                Matcher m = PREFIXED.matcher(line);
                if (m.matches() && Integer.parseInt(m.group(1)) == rank) {
                    mine.add(m.group(2));
                }
            }
            return mine;
        }
    }

    private static List<String> childCommand(String... args) {
        try {
            Path classes = Path.of(LaunchChild.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            List<String> c = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                    .toString(), "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", classes.toString(),
                    LaunchChild.class.getName()));
            c.addAll(List.of(args));
            return c;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static LaunchCommand launchCommand(List<String> args) throws UsageException {
        List<String> line = new ArrayList<>();
        line.add("launch");
        line.addAll(args);
        return Cli.parse(line, Map.of()).options(LaunchCommand.class);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static Outcome launch(int nproc, int port, String... childArgs) throws Exception {
        return launch(nproc, port, Launch.GRACE_MILLIS, childArgs);
    }

    private static Outcome launch(int nproc, int port, long graceMillis, String... childArgs) throws Exception {
        LaunchCommand args = launchCommand(List.of("--nproc", Integer.toString(nproc), "--master-port",
                Integer.toString(port), "--timeout", "5s", "test-workload"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Launch launch = new Launch(args, rank -> childCommand(childArgs),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                graceMillis);
        CompletableFuture<Integer> result = CompletableFuture.supplyAsync(() -> {
            try {
                return launch.call();
            } catch (LaunchException e) {
                throw new CompletionException(e);
            }
        });
        try {
            int code = result.get(LIMIT_SECONDS, TimeUnit.SECONDS);
            return new Outcome(code, out.toString(StandardCharsets.UTF_8).lines().collect(Collectors.toList()),
                    err.toString(StandardCharsets.UTF_8).lines().collect(Collectors.toList()), launch.processes());
        } finally {
            launch.processes().forEach(Process::destroyForcibly);
        }
    }

    @Test
    public void everyRankGetsItsEnvironmentAndEveryLineArrivesWholeAndPrefixed() throws Exception {
        int port = freePort();
        Outcome o = launch(3, port, "lines=300");
        assertEquals(0, o.code());
        assertEquals(3, o.processes().size());
        for (String line : o.out()) {
            assertTrue("not prefixed or cut: " + line, PREFIXED.matcher(line).matches());
        }
        for (int rank = 0; rank < 3; rank++) {
            List<String> out = o.of(o.out(), rank);
            assertEquals("env RANK=" + rank + " LOCAL_RANK=" + rank + " WORLD_SIZE=3 LOCAL_WORLD_SIZE=3"
                    + " MASTER_ADDR=127.0.0.1 MASTER_PORT=" + port + " VANTAGE_LAUNCH_TIMEOUT_MS=5000", out.get(0));
            assertEquals(301, out.size());
            for (int i = 0; i < 300; i++) {
                assertEquals("line " + i + " " + LaunchChild.FILLER, out.get(i + 1));
            }
            assertEquals(List.of("stderr of rank " + rank), o.of(o.err(), rank));
        }
        assertEquals(3, o.err().size());
    }

    @Test
    public void theFirstFailureStopsTheOtherRanksAndGivesTheExitCode() throws Exception {
        Outcome o = launch(3, freePort(), "exit=1:3", "sleep=0,2");
        assertEquals(3, o.code());
        String stopping = "vantage: rank 1 exited with code 3; stopping the other ranks";
        assertEquals(1, o.err().stream().filter(stopping::equals).count());
        // the failing rank's last words come before the launcher's
        assertTrue(o.err().indexOf("[rank1]: exiting with 3") < o.err().indexOf(stopping));
        for (Process p : o.processes()) {
            assertFalse(p.isAlive());
        }
        // the sleeping ranks never end by themselves: they were stopped
        assertNotEquals(0, o.processes().get(0).exitValue());
        assertNotEquals(0, o.processes().get(2).exitValue());
    }

    @Test
    public void aRankThatIgnoresTheStopIsKilledAfterTheGracePeriod() throws Exception {
        Path ready = tmp.getRoot().toPath().resolve("rank0-ready");
        Outcome o = launch(2, freePort(), 500, "stubborn=0:" + ready, "await=" + ready, "exit=1:3");
        assertEquals(3, o.code());
        assertTrue(o.err().contains("vantage: rank 1 exited with code 3; stopping the other ranks"));
        assertFalse(o.processes().get(0).isAlive());
        // 128 + SIGKILL: destroy() was not enough, destroyForcibly() ended it
        assertEquals(137, o.processes().get(0).exitValue());
    }

    @Test
    public void aFailureAfterTheOthersSucceededIsTheExitCodeAndStopsNothing() throws Exception {
        Path pid = tmp.getRoot().toPath().resolve("rank0.pid");
        Outcome o = launch(2, freePort(), "pid=0:" + pid, "outlive=" + pid, "exit=1:5");
        assertEquals(5, o.code());
        assertEquals(List.of("stderr of rank 1", "exiting with 5"), o.of(o.err(), 1));
        assertEquals(0, o.processes().get(0).exitValue());
        // nothing ran any more when rank 1 failed: nothing to stop, nothing said
        assertEquals(List.of(), o.err().stream().filter(l -> l.startsWith("vantage:")).collect(Collectors.toList()));
    }

    @Test
    public void refusesAMasterPortInUseBeforeStartingAnything() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            LaunchCommand args = launchCommand(List.of("--nproc", "2", "--master-port", Integer.toString(port), "m"));
            AtomicInteger built = new AtomicInteger();
            Launch launch = new Launch(args, rank -> {
                built.incrementAndGet();
                return childCommand();
            }, System.out, System.err);
            String message = assertThrows(IllegalArgumentException.class, launch::call).getMessage();
            assertTrue(message, message.startsWith("master port " + port + " on 127.0.0.1 is taken ("));
            assertTrue(message, message.endsWith("); choose another with --master-port"));
            assertEquals(0, built.get());
        }
    }

    @Test
    public void refusesAMasterAddressOfAnotherMachine() {
        // 192.0.2.0/24 is TEST-NET-1 (RFC 5737): never an address of this machine
        assertEquals("--master-addr '192.0.2.1' is not an address of this machine; launch starts every rank here",
                assertThrows(IllegalArgumentException.class, () -> Launch.checkMasterPort("192.0.2.1", 29500))
                        .getMessage());
    }

    @Test
    public void aRankThatCannotStartStopsTheLaunch() throws Exception {
        LaunchCommand args = launchCommand(List.of("--nproc", "2", "--master-port", Integer.toString(freePort()),
                "m"));
        Launch launch = new Launch(args, rank -> rank == 0 ? childCommand("sleep=0")
                : List.of("/nonexistent/vantage-test/java"), System.out, System.err);
        CompletableFuture<String> failure = CompletableFuture.supplyAsync(() -> {
            try {
                launch.call();
                return "no failure";
            } catch (LaunchException e) {
                return e.getMessage();
            }
        });
        try {
            String message = failure.get(LIMIT_SECONDS, TimeUnit.SECONDS);
            assertTrue(message, message.startsWith("cannot start rank 1: "));
            assertFalse(launch.processes().get(0).isAlive());
        } catch (ExecutionException e) {
            throw new AssertionError(e.getCause());
        } finally {
            launch.processes().forEach(Process::destroyForcibly);
        }
    }
}
