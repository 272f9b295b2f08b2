package dev.vantage.trace.engine;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.zip.GZIPOutputStream;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** torch's export_memory_timeline JSON read back: its categories, its points, and files that are none. */
public class MemoryTimelineFileTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Test
    public void readsTimesInNanosecondsAndTheBytesOfEachCategory() throws Exception {
        Path file = tmp.getRoot().toPath().resolve("run.memory-timeline.json.gz");
        String json = "[[1700000000000001, 1700000000000005], [[0, 4096, 0, 512, 0, 0, 0, 0, 0],"
                + " [0, 4096, 1024, 512, 0, 2048, 0, 0, 64]]]";
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file))) {
            out.write(json.getBytes(StandardCharsets.UTF_8));
        }
        MemoryTimelineFile t = MemoryTimelineFile.read(file);
        assertEquals(List.of("PARAMETER", "OPTIMIZER_STATE", "INPUT", "TEMPORARY", "ACTIVATION", "GRADIENT",
                "AUTOGRAD_DETAIL", "Unknown"), t.categories());
        assertEquals(2, t.points().size());
        assertEquals(List.of(1_700_000_000_000_005_000L, 4096L, 1024L, 512L, 0L, 2048L, 0L, 0L, 64L),
                Arrays.stream(t.points().get(1)).boxed().toList());
    }

    @Test
    public void refusesWhatIsNoTimeline() throws Exception {
        for (String json : List.of("{\"traceEvents\": []}", "[[1, 2], [[0, 1, 2, 3, 4, 5, 6, 7, 8]]]",
                "[[1], [[0, 1, 2]]]")) {
            Path file = tmp.newFile().toPath();
            Files.writeString(file, json);
            try {
                MemoryTimelineFile.read(file);
                fail("read " + json);
            } catch (IOException e) {
                assertTrue(e.getMessage(), !e.getMessage().isEmpty());
            }
        }
    }
}
