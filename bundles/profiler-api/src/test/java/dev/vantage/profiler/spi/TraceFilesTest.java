package dev.vantage.profiler.spi;

import static org.junit.Assert.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Files written whole or not at all, and the leftovers of killed writers removed by the next write. */
public class TraceFilesTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    /** The pid of a process that has ended. */
    private static long deadPid() throws Exception {
        Process p = new ProcessBuilder("true").start();
        p.waitFor();
        return p.pid();
    }

    private static Set<String> names(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).collect(Collectors.toSet());
        }
    }

    @Test
    public void aWriteRemovesTheTemporariesOfWritersThatAreGoneAndNothingElse() throws Exception {
        Path dir = tmp.getRoot().toPath();
        long dead = deadPid();
        long self = ProcessHandle.current().pid();
        String staleFile = ".old.trace.json.gz." + dead + "." + UUID.randomUUID() + ".tmp";
        String staleFolder = ".old_csv." + dead + "." + UUID.randomUUID() + ".tmp";
        String running = ".other.trace.json.gz." + self + "." + UUID.randomUUID() + ".tmp";
        Files.writeString(dir.resolve(staleFile), "half a trace");
        Files.createDirectories(dir.resolve(staleFolder).resolve("inner"));
        Files.writeString(dir.resolve(staleFolder).resolve("inner").resolve("kernel_details.csv"), "a,b");
        Files.writeString(dir.resolve(running), "being written");
        Files.writeString(dir.resolve(".keep"), "");
        Files.writeString(dir.resolve(".old." + dead + ".not-a-uuid.tmp"), "");

        TraceFiles.writeFile(dir.resolve("new.trace.json"), out -> out.write("{}".getBytes(StandardCharsets.UTF_8)));

        assertEquals(Set.of("new.trace.json", running, ".keep", ".old." + dead + ".not-a-uuid.tmp"), names(dir));
        assertEquals("{}", Files.readString(dir.resolve("new.trace.json")));
    }

    @Test
    public void aFailedWriteLeavesNothing() throws Exception {
        Path dir = tmp.getRoot().toPath();
        try {
            TraceFiles.writeFile(dir.resolve("t.json"), out -> {
                out.write(1);
                throw new IOException("disk full");
            });
        } catch (IOException expected) {
            assertEquals("disk full", expected.getMessage());
        }
        assertEquals(List.of(), List.copyOf(names(dir)));
    }

    @Test
    public void aFailedWriteRemovesTheFoldersItMadeAndKeepsThoseThatWereThere() throws Exception {
        Path dir = tmp.getRoot().toPath();
        Files.createDirectory(dir.resolve("kept"));
        for (Path target : List.of(dir.resolve("kept/new/deeper/t.json"), dir.resolve("kept/made/folder"))) {
            try {
                if (target.getFileName().toString().equals("folder")) {
                    TraceFiles.writeFolder(target, folder -> {
                        throw new IOException("No space left on device");
                    });
                } else {
                    TraceFiles.writeFile(target, out -> {
                        throw new IOException("No space left on device");
                    });
                }
                throw new AssertionError("the write did not fail");
            } catch (IOException expected) {
                assertEquals("No space left on device", expected.getMessage());
            }
        }
        assertEquals(List.of("kept"), List.copyOf(names(dir)));
        assertEquals(List.of(), List.copyOf(names(dir.resolve("kept"))));
    }
}
