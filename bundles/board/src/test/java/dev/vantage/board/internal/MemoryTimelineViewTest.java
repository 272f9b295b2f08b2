package dev.vantage.board.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import dev.vantage.board.api.ViewSection;
import dev.vantage.board.internal.views.MemoryView;

/** A run's memory timeline, named by its registry line, draws the Memory view's bytes by category. */
public class MemoryTimelineViewTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private ViewSection categories(Path logs) throws Exception {
        Runs runs = new Runs(new Logdir(logs), 8, () -> 0L);
        Logdir.Found found = runs.list().get(0);
        return new MemoryView().render(runs.analysed(found)).stream()
                .filter(s -> s.id().startsWith("memory-categories")).findFirst().orElseThrow();
    }

    @Test
    public void theRunsTimelineIsDrawnByCategoryAndAnUnreadableOneSaysWhy() throws Exception {
        Path logs = tmp.getRoot().toPath().resolve("logs");
        Path profile = Files.createDirectories(logs.resolve("vantage_profiles"));
        RunsTest.copy(RunsTest.ADVICE_TRACE, profile.resolve("run.trace.json"));
        Path folder = Files.createDirectories(profile.resolve("run_memory-timeline"));
        // 1 MiB of parameters, then 2 MiB of activations more, 3 ms later
        Files.writeString(folder.resolve("run.memory-timeline.json"), "[[1700000000000000, 1700000000003000],"
                + " [[0, 1048576, 0, 0, 0, 0, 0, 0, 0], [0, 1048576, 0, 0, 0, 2097152, 0, 0, 0]]]");
        Files.writeString(folder.resolve("run.memory-timeline.html"), "<html></html>");
        Files.writeString(profile.resolve("runs.jsonl"), "{\"run_id\": \"0123456789ab\", \"configuration\":"
                + " {\"device\": \"npu:0\"}, \"artifacts\": [{\"path\": \"run.trace.json\", \"kind\": \"chrome\"},"
                + " {\"path\": \"run_memory-timeline/run.memory-timeline.html\", \"kind\": \"memory-timeline\"},"
                + " {\"path\": \"run_memory-timeline/run.memory-timeline.json\", \"kind\": \"memory-timeline\"}]}\n");
        ViewSection chart = categories(logs);
        assertEquals("Memory by category, npu:0", chart.title());
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> series = (List<Map<String, Object>>) chart.chart().get("series");
        // only the categories that ever held bytes, in torch's order
        assertEquals(List.of("PARAMETER", "ACTIVATION"), series.stream().map(s -> s.get("name")).toList());
        assertEquals(List.of(List.of(0.0, 1.0), List.of(3.0, 1.0)), series.get(0).get("data"));
        assertEquals(List.of(List.of(0.0, 0.0), List.of(3.0, 2.0)), series.get(1).get("data"));

        Files.writeString(folder.resolve("run.memory-timeline.json"), "[[1], [[0, 1]]]");
        ViewSection broken = categories(logs);
        assertTrue(broken.note(), broken.note().contains("could not be read"));
    }
}
