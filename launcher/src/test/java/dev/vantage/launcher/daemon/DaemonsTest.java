package dev.vantage.launcher.daemon;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.PrintStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import dev.vantage.cli.DaemonCommand;

/** Where resident processes live and how they are told apart. */
public class DaemonsTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Test
    public void theFolderIsMadePrivateAndAFolderOthersMayOpenIsRefused() throws Exception {
        Path made = Daemons.folder(Map.of(Daemons.FOLDER, tmp.getRoot().toPath().resolve("a/b").toString()));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(made)));
        Path open = Files.createDirectory(tmp.getRoot().toPath().resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxr-xr-x"));
        IOException e = assertThrows(IOException.class,
                () -> Daemons.folder(Map.of(Daemons.FOLDER, open.toString())));
        assertEquals(open + " may be opened by others (rwxr-xr-x); it must be rwx------", e.getMessage());
        Path file = Files.writeString(tmp.getRoot().toPath().resolve("file"), "");
        assertThrows(IOException.class, () -> Daemons.folder(Map.of(Daemons.FOLDER, file.toString())));
    }

    @Test
    public void theIdleTimeIsWholeSecondsFromOne() {
        assertEquals(Daemons.DEFAULT_IDLE_SECONDS, Daemons.idleSeconds(Map.of()));
        assertEquals(30, Daemons.idleSeconds(Map.of(Daemons.IDLE, "30")));
        for (String bad : List.of("0", "-1", "5m", "1.5")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> Daemons.idleSeconds(Map.of(Daemons.IDLE, bad)));
            assertEquals("VANTAGE_DAEMON_IDLE='" + bad + "' is not a number of seconds (1 or more)", e.getMessage());
        }
    }

    @Test
    public void aFolderJvmOptionsOrARebuiltLauncherIsAnotherProcess() throws Exception {
        Path jar = Files.writeString(tmp.getRoot().toPath().resolve("launcher.jar"), "v1");
        Path here = tmp.newFolder("here").toPath();
        Path there = tmp.newFolder("there").toPath();
        String base = Daemons.identity(jar, here, "", "/usr/bin/java");
        assertEquals(base, Daemons.identity(jar, here.resolve("."), "", "/usr/bin/java"));
        assertEquals(16, Daemons.key(base).length());
        assertNotEquals(Daemons.key(base), Daemons.key(Daemons.identity(jar, there, "", "/usr/bin/java")));
        assertNotEquals(Daemons.key(base), Daemons.key(Daemons.identity(jar, here, "-Xmx8g", "/usr/bin/java")));
        Files.writeString(jar, "v2, longer");
        assertNotEquals(Daemons.key(base), Daemons.key(Daemons.identity(jar, here, "", "/usr/bin/java")));
        // FNV-1a's published value for "a", so the key is the same whichever JVM computes it
        assertEquals("af63dc4c8601ec8c", Daemons.key("a"));
    }

    @Test
    public void theClientStartsTheServerClass() {
        assertEquals(DaemonServer.class.getName(), Daemons.SERVER);
    }

    @Test
    public void statusWithoutProcessesSaysSo() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Path dir = tmp.getRoot().toPath().resolve("none");
        assertEquals(0, Daemons.command(DaemonCommand.Action.status, Map.of(Daemons.FOLDER, dir.toString()),
                new PrintStream(out, true), System.err));
        assertTrue(out.toString(), out.toString().startsWith("no resident analysis process is running"));
    }
}
