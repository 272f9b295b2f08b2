package dev.vantage.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class BoardCommandTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private static BoardCommand board(String... args) throws UsageException {
        List<String> line = new java.util.ArrayList<>(List.of("board"));
        line.addAll(List.of(args));
        return Cli.parse(line, Map.of()).options(BoardCommand.class);
    }

    private static String refusal(String... args) {
        try {
            board(args);
        } catch (UsageException e) {
            return e.getMessage();
        }
        fail("accepted: " + String.join(" ", args));
        return null;
    }

    @Test
    public void listensOnTheLoopbackAddressWithoutATokenByDefault() throws Exception {
        Path logdir = tmp.newFolder("logs").toPath();
        BoardCommand b = board("--logdir", logdir.toString(), "--port", "0");
        assertEquals("127.0.0.1", b.listenHost());
        assertTrue(b.loopback());
        assertNull(b.token());
        assertEquals(logdir.toAbsolutePath().normalize(), b.logdir());
        assertEquals(Host.SERVICE, b.host());
    }

    @Test
    public void anyOtherAddressGetsARandomToken() throws Exception {
        Path logdir = tmp.newFolder("logs").toPath();
        BoardCommand one = board("--logdir", logdir.toString(), "--host", "0.0.0.0", "--port", "0");
        BoardCommand two = board("--logdir", logdir.toString(), "--host", "0.0.0.0", "--port", "0");
        assertFalse(one.loopback());
        assertTrue(one.token(), one.token().matches("[0-9a-f]{48}"));
        assertFalse(one.token().equals(two.token()));
        assertEquals("given-token-0123456789", board("--logdir", logdir.toString(), "--host", "0.0.0.0", "--port",
                "0", "--token", "given-token-0123456789").token());
    }

    @Test
    public void refusesWhatCannotServeBeforeTheBoardStarts() throws Exception {
        Path logdir = tmp.newFolder("logs").toPath();
        Path file = Files.writeString(logdir.resolve("f.txt"), "x");
        assertEquals("--logdir " + logdir.resolve("nope") + ": no such directory",
                refusal("--logdir", logdir.resolve("nope").toString()));
        assertEquals("--logdir " + file + ": not a directory", refusal("--logdir", file.toString()));
        assertEquals("--token: letters, digits, '-' and '_', at least 16 of them",
                refusal("--logdir", logdir.toString(), "--port", "0", "--token", "short"));
        assertTrue(refusal("--logdir", logdir.toString(), "--port", "70000").contains("70000"));
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String why = refusal("--logdir", logdir.toString(), "--port", String.valueOf(taken.getLocalPort()));
            assertTrue(why, why.startsWith("--port " + taken.getLocalPort() + ": in use on 127.0.0.1"));
        }
    }
}
