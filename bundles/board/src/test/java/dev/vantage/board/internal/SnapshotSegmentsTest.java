package dev.vantage.board.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import dev.vantage.board.api.ViewSection;
import dev.vantage.board.internal.views.MemoryView;
import net.razorvine.pickle.Pickler;

/** A run's memory snapshot, named by its registry line, shows its segments in the Memory view. */
public class SnapshotSegmentsTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private static Map<String, Object> segment(long address, long total, long allocated, String... states) {
        List<Object> blocks = new java.util.ArrayList<>();
        for (String s : states) {
            blocks.add(Map.of("size", 512L, "state", s));
        }
        return Map.of("device", 0, "address", address, "stream", 0, "segment_type", "large", "total_size", total,
                "allocated_size", allocated, "active_size", allocated, "requested_size", allocated, "blocks", blocks);
    }

    @Test
    public void theSegmentsOfTheRunsSnapshotAreShownLargestFirst() throws Exception {
        Path profile = Files.createDirectories(tmp.getRoot().toPath().resolve("logs/vantage_profiles"));
        RunsTest.copy(RunsTest.ADVICE_TRACE, profile.resolve("run.trace.json"));
        Map<String, Object> snapshot = Map.of("segments", List.of(segment(0x7f0000200000L, 2_097_152, 1024,
                "active_allocated", "active_allocated", "inactive"), segment(0x7f0000000000L, 20_971_520, 0,
                "inactive")), "device_traces", List.of(List.of()));
        try (OutputStream out = Files.newOutputStream(profile.resolve("run-rank0-memory.pickle"))) {
            new Pickler().dump(snapshot, out);
        }
        Files.writeString(profile.resolve("runs.jsonl"), "{\"run_id\": \"0123456789ab\", \"artifacts\": ["
                + "{\"path\": \"run.trace.json\", \"kind\": \"chrome\"},"
                + " {\"path\": \"run-rank0-memory.pickle\", \"kind\": \"memory-snapshot\"}]}\n");
        Runs runs = new Runs(new Logdir(tmp.getRoot().toPath().resolve("logs")), 8, () -> 0L);
        Logdir.Found found = runs.list().get(0);
        assertEquals("run-rank0-memory.pickle", found.tags().get("memory_snapshot"));
        List<ViewSection> sections = new MemoryView().render(runs.analysed(found));
        ViewSection segments = sections.stream().filter(s -> s.id().equals("memory-segments")).findFirst()
                .orElseThrow();
        assertEquals(2, segments.rows().size());
        assertEquals(java.util.Arrays.asList(0, "0x7f0000000000", 0, "large", 20_971_520L, 0L, 0L, 0L, 1L, 0L),
                segments.rows().get(0));
        assertEquals(java.util.Arrays.asList(0, "0x7f0000200000", 0, "large", 2_097_152L, 1024L, 1024L, 1024L, 3L,
                2L), segments.rows().get(1));
        // a snapshot that is not one: the section says why, the rest of the view is drawn
        Files.writeString(profile.resolve("run-rank0-memory.pickle"), "not a pickle");
        runs = new Runs(new Logdir(tmp.getRoot().toPath().resolve("logs")), 8, () -> 0L);
        ViewSection broken = new MemoryView().render(runs.analysed(runs.list().get(0))).stream()
                .filter(s -> s.id().equals("memory-segments")).findFirst().orElseThrow();
        assertTrue(broken.note(), broken.note().contains("could not be read"));
    }
}
