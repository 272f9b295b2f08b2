package dev.vantage.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;
import static org.junit.Assume.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** A profile directory is checked before any work: a directory, writable, with room, and a registry of our own. */
public class ProfileDirectoryTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Test
    public void aFileIsNotADirectoryAndAMissingDirectoryIsMade() throws Exception {
        Path file = tmp.newFile("file").toPath();
        assertEquals(file + ": not a directory",
                assertThrows(IllegalArgumentException.class, () -> ProfileDirectory.check(file)).getMessage());
        Path made = tmp.getRoot().toPath().resolve("a/b");
        ProfileDirectory.check(made);
        assertTrue(Files.isDirectory(made));
        // under a file nothing can be made, and nothing made on the way stays
        Path under = file.resolve("x/y");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ProfileDirectory.check(under)).getMessage()
                .startsWith(under + ": cannot write traces there ("));
    }

    @Test
    public void aRegistryThatIsALinkOrAnotherUsersIsRefusedBeforeAnyWork() throws Exception {
        Path dir = tmp.newFolder("p").toPath();
        Path victim = tmp.newFile("victim").toPath();
        Files.createSymbolicLink(dir.resolve("runs.jsonl"), victim);
        String message = assertThrows(IllegalArgumentException.class, () -> ProfileDirectory.check(dir))
                .getMessage();
        assertEquals(dir + ": runs.jsonl is a symbolic link (to " + victim + "); a run writes its line only to a"
                + " registry of this user's own (remove it, or profile into another directory)", message);
        Files.delete(dir.resolve("runs.jsonl"));
        Path registry = Files.writeString(dir.resolve("runs.jsonl"), "");
        ProfileDirectory.check(dir);
        try {
            Files.setAttribute(registry, "unix:uid", 65534);
        } catch (IOException | UnsupportedOperationException e) {
            assumeTrue("cannot give a file to another user here: " + e, false);
        }
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ProfileDirectory.check(dir)).getMessage()
                .contains("runs.jsonl belongs to "));
        assertFalse(Files.isSymbolicLink(registry));
    }
}
