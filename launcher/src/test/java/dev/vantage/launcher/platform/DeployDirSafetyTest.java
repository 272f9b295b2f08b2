package dev.vantage.launcher.platform;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** A deploy directory that others can write to, or that another user owns, is named before the platform starts. */
public class DeployDirSafetyTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private final String me = System.getProperty("user.name");

    private Path dir(String mode) throws Exception {
        Path d = tmp.newFolder().toPath();
        Files.setPosixFilePermissions(d, PosixFilePermissions.fromString(mode));
        return d;
    }

    @Test
    public void aDirectoryOnlyItsOwnerCanWriteIsSafe() throws Exception {
        assertNull(DeployDirSafety.problem(dir("rwx------"), me));
        assertNull(DeployDirSafety.problem(dir("rwxr-xr-x"), me));
    }

    @Test
    public void aDirectoryOthersCanWriteIsNamedWithItsMode() throws Exception {
        Path d = dir("rwxrwxrwx");
        assertEquals("deploy directory " + d + " is writable by every user (rwxrwxrwx)",
                DeployDirSafety.problem(d, me));
        Path g = dir("rwxrwxr-x");
        assertTrue(DeployDirSafety.problem(g, me).startsWith("deploy directory " + g + " is writable by its group "));
    }

    @Test
    public void aDirectoryAnotherUserOwnsIsNamedWithItsOwner() throws Exception {
        Path d = dir("rwxr-xr-x");
        assertEquals("deploy directory " + d + " belongs to " + me + ", not to someone-else",
                DeployDirSafety.problem(d, "someone-else"));
    }

    @Test
    public void theRefusalSaysHowToFixItAndHowToOverride() {
        String line = DeployDirSafety.refusal("deploy directory /x is writable by every user (rwxrwxrwx)",
                Path.of("/x"));
        assertTrue(line, line.contains("chmod go-w /x"));
        assertTrue(line, line.endsWith("or pass --allow-shared-deploy-dir"));
        assertTrue(line, line.contains("would run with this platform's rights"));
    }
}
