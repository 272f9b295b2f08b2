package dev.vantage.analysis;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** How {@code convert} puts its folders in place: all or nothing, never over another writer's, nothing left behind. */
public class StagingTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Test
    public void aFolderAnotherConversionWroteMeanwhileIsKept() throws IOException {
        Path out = tmp.getRoot().toPath().resolve("out");
        try (Staging staging = Staging.open(out)) {
            Files.createDirectories(staging.dir().resolve("x_parquet"));
            Files.writeString(staging.dir().resolve("x_parquet").resolve("steps.parquet"), "mine");
            // the other conversion of the same name finished first
            Files.createDirectories(out.resolve("x_parquet"));
            Files.writeString(out.resolve("x_parquet").resolve("steps.parquet"), "theirs");
            IOException e = assertThrows(IOException.class, () -> staging.commit(List.of("x_parquet")));
            assertEquals(out.resolve("x_parquet") + " was written by another conversion meanwhile; it is kept, and this"
                    + " conversion of it is not", e.getMessage());
        }
        assertEquals("theirs", Files.readString(out.resolve("x_parquet").resolve("steps.parquet")));
        try (var left = Files.list(out)) {
            assertEquals("the staging folder is gone", List.of(out.resolve("x_parquet")), left.toList());
        }
    }

    @Test
    public void anAbandonedConversionLeavesNeitherItsStagingNorTheOutputItCreated() throws IOException {
        Path out = tmp.getRoot().toPath().resolve("new").resolve("out");
        try (Staging staging = Staging.open(out)) {
            Files.writeString(staging.dir().resolve("half.parquet"), "half");
        }
        assertFalse(Files.exists(tmp.getRoot().toPath().resolve("new")));
    }

    @Test
    public void aCommittedFolderStaysAndTheStagingGoes() throws IOException {
        Path out = tmp.getRoot().toPath().resolve("out");
        try (Staging staging = Staging.open(out)) {
            Files.createDirectories(staging.dir().resolve("x_parquet"));
            staging.commit(List.of("x_parquet"));
        }
        try (var left = Files.list(out)) {
            assertEquals(List.of(out.resolve("x_parquet")), left.toList());
        }
    }

    @Test
    public void theStagingOfAKilledConversionIsRemovedByTheNext() throws IOException {
        Path out = tmp.newFolder("out").toPath();
        // a pid no process has: the conversion that staged this was killed
        Path dead = out.resolve(".convert.2147483646.00000000-0000-0000-0000-000000000000.tmp");
        Files.createDirectories(dead.resolve("x_parquet"));
        try (Staging staging = Staging.open(out)) {
            assertFalse(Files.exists(dead));
            assertTrue(Files.isDirectory(staging.dir()));
        }
    }
}
