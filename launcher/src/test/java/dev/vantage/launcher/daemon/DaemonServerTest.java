package dev.vantage.launcher.daemon;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * A resident process and its clients over a real socket, with a runner that stands in for the analysis verbs: what a
 * call prints reaches the client byte for byte and in its own stream, its exit code and its refusals are the
 * launcher's, another identity's call and another process for the same key are turned away, and the process ends
 * when told to, when idle, and after an error of the JVM's.
 */
public class DaemonServerTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private Path dir;
    private final List<CompletableFuture<Void>> running = new ArrayList<>();

    @Before
    public void folder() throws Exception {
        dir = Daemons.folder(Map.of(Daemons.FOLDER, tmp.getRoot().toPath().resolve("d").toString()));
    }

    @After
    public void stopAll() throws Exception {
        for (CompletableFuture<Void> server : running) {
            server.get(30, TimeUnit.SECONDS);
        }
    }

    /** Binds a server and serves on a thread of its own; the future ends when the server does. */
    private CompletableFuture<Void> serve(String identity, Duration idle, DaemonServer.Runner runner)
            throws Exception {
        DaemonServer server = new DaemonServer(dir, identity, tmp.getRoot().toPath(), idle, runner);
        assertTrue("bound", server.bind());
        CompletableFuture<Void> done = CompletableFuture.runAsync(() -> {
            try {
                server.serve();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        running.add(done);
        return done;
    }

    private Path socket(String identity) {
        return dir.resolve(Daemons.key(identity) + ".sock");
    }

    /** What a client got: its exit code (-1: run it yourself), its output and its errors. */
    private record Answer(int code, byte[] out, String err) {
    }

    private Answer call(String identity, Map<String, String> env, String... args) throws Exception {
        return ask(identity, new Wire.Request(Wire.CALL, identity, env, List.of(args)));
    }

    private Answer ask(String identity, Wire.Request request) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try (SocketChannel channel = Daemons.connect(socket(identity))) {
            int code = Daemons.request(channel, request, new PrintStream(out, true), new PrintStream(err, true));
            return new Answer(code, out.toByteArray(), err.toString(StandardCharsets.UTF_8));
        }
    }

    private void stop(String identity) throws Exception {
        Answer stopped = ask(identity, new Wire.Request(Wire.STOP, null, Map.of(), List.of()));
        assertEquals(0, stopped.code());
        assertTrue(new String(stopped.out(), StandardCharsets.UTF_8), new String(stopped.out(),
                StandardCharsets.UTF_8).endsWith(": stopped\n"));
    }

    @Test
    public void aCallsOutputErrorsEnvironmentAndExitCodeReachTheClientAsTheRunnerMadeThem() throws Exception {
        byte[] big = new byte[300_000]; // several frames, and every byte value
        new Random(7).nextBytes(big);
        List<List<String>> seen = new ArrayList<>();
        serve("a", Duration.ofMinutes(5), (args, env, out, err) -> {
            seen.add(args);
            out.write(big);
            err.println("vantage: " + env.get("VANTAGE_PROFILER_DIR"));
            out.print("é");
            return args.size();
        });
        Answer answer = call("a", Map.of("VANTAGE_PROFILER_DIR", "runs/x"), "analyze", "t.json", "--format", "csv");
        assertEquals("the runner's code", 4, answer.code());
        byte[] expected = new byte[big.length + 2];
        System.arraycopy(big, 0, expected, 0, big.length);
        System.arraycopy("é".getBytes(StandardCharsets.UTF_8), 0, expected, big.length, 2);
        assertArrayEquals(expected, answer.out());
        assertEquals("vantage: runs/x\n", answer.err());
        assertEquals(List.of(List.of("analyze", "t.json", "--format", "csv")), seen);
        // the process serves one call after another
        assertEquals(1, call("a", Map.of(), "runs").code());
        Answer status = ask("a", new Wire.Request(Wire.STATUS, null, Map.of(), List.of()));
        String line = new String(status.out(), StandardCharsets.UTF_8);
        assertTrue(line, line.startsWith("pid " + ProcessHandle.current().pid() + "  " + tmp.getRoot().toPath()));
        assertTrue(line, line.contains(", 2 calls, "));
        stop("a");
    }

    @Test
    public void failuresAreTheLaunchersExitCodesAndAnErrorOfTheJvmsEndsTheProcess() throws Exception {
        CompletableFuture<Void> server = serve("b", Duration.ofMinutes(5), (args, env, out, err) -> {
            switch (args.get(0)) {
                case "bad" -> throw new IllegalArgumentException("'x' is no trace");
                case "io" -> throw new java.io.IOException("disk full");
                case "oom" -> throw new OutOfMemoryError("Java heap space");
                default -> {
                    return DaemonServer.ELSEWHERE;
                }
            }
        });
        Answer bad = call("b", Map.of(), "bad");
        assertEquals(2, bad.code());
        assertEquals("vantage: 'x' is no trace\n", bad.err());
        assertEquals(1, call("b", Map.of(), "io").code());
        assertEquals("a verb the process does not run", -1, call("b", Map.of(), "run").code());
        Answer oom = call("b", Map.of(), "oom");
        assertEquals(1, oom.code());
        assertTrue(oom.err(), oom.err().startsWith("vantage: the JVM ran out of memory (Java heap space)"));
        server.get(30, TimeUnit.SECONDS);
        assertFalse("its socket is removed", Files.exists(socket("b")));
        assertNull("nothing answers", Daemons.connect(socket("b")));
    }

    @Test
    public void anotherIdentitysCallAndASecondProcessOfTheKeyAreTurnedAway() throws Exception {
        serve("c", Duration.ofMinutes(5), (args, env, out, err) -> 0);
        Answer other = ask("c", new Wire.Request(Wire.CALL, "c, elsewhere", Map.of(), List.of("analyze")));
        assertEquals("the client runs it", -1, other.code());
        DaemonServer second = new DaemonServer(dir, "c", tmp.getRoot().toPath(), Duration.ofMinutes(5),
                (args, env, out, err) -> 3);
        assertFalse("the first one serves the key", second.bind());
        assertEquals("the first one still answers", 0, call("c", Map.of(), "analyze").code());
        stop("c");
    }

    @Test
    public void aProcessWithoutCallsEndsAfterItsIdleTimeAndTheNextOneTakesItsKey() throws Exception {
        CompletableFuture<Void> first = serve("d", Duration.ofMillis(300), (args, env, out, err) -> 5);
        assertEquals(5, call("d", Map.of(), "analyze").code());
        first.get(30, TimeUnit.SECONDS);
        assertFalse(Files.exists(socket("d")));
        serve("d", Duration.ofMinutes(5), (args, env, out, err) -> 6);
        assertEquals(6, call("d", Map.of(), "analyze").code());
        stop("d");
    }

    @Test
    public void statusListsTheLiveProcessesAndRemovesTheFilesOfOnesThatEnded() throws Exception {
        serve("f", Duration.ofMinutes(5), (args, env, out, err) -> 0);
        List<String> suffixes = List.of(".sock", ".lock", ".log", ".warmup.json");
        for (String suffix : suffixes) {
            // a process killed two days ago
            Files.writeString(dir.resolve("0123456789abcdef" + suffix), "");
            Files.setLastModifiedTime(dir.resolve("0123456789abcdef" + suffix),
                    java.nio.file.attribute.FileTime.from(java.time.Instant.now().minus(Duration.ofDays(2))));
            // one that ended an hour ago: its log is kept for the day, its socket goes
            Files.writeString(dir.resolve("fedcba9876543210" + suffix), "");
        }
        Files.setLastModifiedTime(dir.resolve("fedcba9876543210.log"),
                java.nio.file.attribute.FileTime.from(java.time.Instant.now().minus(Duration.ofHours(1))));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(0, Daemons.command(dev.vantage.cli.DaemonCommand.Action.status,
                Map.of(Daemons.FOLDER, dir.toString()), new PrintStream(out, true), System.err));
        String listed = out.toString(StandardCharsets.UTF_8);
        assertTrue(listed, listed.startsWith("pid " + ProcessHandle.current().pid() + "  "));
        assertEquals(listed, 1, listed.lines().count());
        for (String suffix : suffixes) {
            assertFalse(suffix, Files.exists(dir.resolve("0123456789abcdef" + suffix)));
        }
        assertFalse(Files.exists(dir.resolve("fedcba9876543210.sock")));
        assertTrue(Files.exists(dir.resolve("fedcba9876543210.log")));
        assertTrue(Files.exists(dir.resolve("fedcba9876543210.lock")));
        assertTrue("the live one's socket stays", Files.exists(socket("f")));
        stop("f");
    }

    @Test
    public void aCallWhoseClientHasGoneEndsAtItsNextOutputAndTheProcessGoesOn() throws Exception {
        CompletableFuture<Long> ended = new CompletableFuture<>();
        serve("g", Duration.ofMinutes(5), (args, env, out, err) -> {
            if (args.get(0).equals("quick")) {
                return 0;
            }
            long lines = 0;
            try {
                while (true) { // a call that prints until it is stopped
                    out.println("line " + lines++);
                    out.flush();
                }
            } catch (RuntimeException e) {
                ended.complete(lines);
                throw e;
            }
        });
        try (SocketChannel channel = Daemons.connect(socket("g"))) {
            new Wire.Request(Wire.CALL, "g", Map.of(), List.of("endless")).write(
                    new java.io.DataOutputStream(java.nio.channels.Channels.newOutputStream(channel)));
            // the first frame is there: the call runs; then the client goes (Ctrl-C)
            assertTrue(channel.read(java.nio.ByteBuffer.allocate(64)) > 0);
        }
        assertTrue("the call stopped", ended.get(30, TimeUnit.SECONDS) > 0);
        assertEquals("the next call is served", 0, call("g", Map.of(), "quick").code());
        stop("g");
    }

    /**
     * A call that prints nothing while it works (convert reading a large trace) is not left to run to its end when
     * its client goes: its thread is interrupted, which stops its file reading, and the next call's is not.
     */
    @Test
    public void aCallWhoseClientHasGoneIsInterruptedAndTheNextCallIsNot() throws Exception {
        CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
        serve("h", Duration.ofMinutes(5), (args, env, out, err) -> {
            if (args.get(0).equals("quick")) {
                return Thread.currentThread().isInterrupted() ? 1 : 0;
            }
            try {
                out.println("started");
                out.flush();
                new java.util.concurrent.CountDownLatch(1).await(); // works, silently, until it is stopped
                interrupted.complete(false);
            } catch (InterruptedException e) {
                interrupted.complete(true);
            } catch (RuntimeException e) {
                // interrupted while the first line's write was still ending: the write throws instead
                interrupted.complete(Thread.currentThread().isInterrupted());
                throw e;
            }
            return 0;
        });
        try (SocketChannel channel = Daemons.connect(socket("h"))) {
            new Wire.Request(Wire.CALL, "h", Map.of(), List.of("silent")).write(
                    new java.io.DataOutputStream(java.nio.channels.Channels.newOutputStream(channel)));
            // the first frame is there: the call runs; then the client goes (Ctrl-C)
            assertTrue(channel.read(java.nio.ByteBuffer.allocate(64)) > 0);
        }
        assertTrue("the call was interrupted", interrupted.get(30, TimeUnit.SECONDS));
        assertEquals("the next call is served and not interrupted", 0, call("h", Map.of(), "quick").code());
        stop("h");
    }

    @Test
    public void aRequestThatIsNotOneIsDroppedAndTheProcessGoesOn() throws Exception {
        serve("e", Duration.ofMinutes(5), (args, env, out, err) -> 0);
        try (SocketChannel channel = Daemons.connect(socket("e"))) {
            channel.write(java.nio.ByteBuffer.wrap("GET / HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII)));
            channel.shutdownOutput();
            assertEquals("closed without an answer", -1, channel.read(java.nio.ByteBuffer.allocate(16)));
        }
        assertEquals(0, call("e", Map.of(), "analyze").code());
        stop("e");
    }
}
