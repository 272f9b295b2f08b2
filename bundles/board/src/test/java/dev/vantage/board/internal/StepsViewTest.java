package dev.vantage.board.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.zip.GZIPInputStream;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.vantage.board.api.ViewSection;
import dev.vantage.board.internal.views.StepsView;
import dev.vantage.trace.engine.summary.StepStats;

/**
 * Two steps of HTA's nanosecond trace compared: each step's device work is the work its launches made while the step
 * ran, summed by kernel name, as the trace's own events say (read here with Jackson's tree, not the engine).
 */
public class StepsViewTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Test
    public void eachStepsKernelsAreTheWorkItsLaunchesMade() throws Exception {
        Path root = tmp.getRoot().toPath().resolve("logs");
        Path file = RunsTest.copy(RunsTest.NS_TRACE, root.resolve("rank-0.pt.trace.json.gz"));
        Runs runs = new Runs(new Logdir(root), 8, () -> 0L);
        AnalysedRun run = runs.analysed(runs.list().get(0));
        List<StepStats> steps = run.summary().steps();
        assertTrue(steps.size() >= 2);
        long a = steps.get(1).step();
        long b = steps.get(steps.size() - 1).step();
        Map<String, ViewSection> sections = new StepsView().render(run, Map.of("a", String.valueOf(a), "b",
                String.valueOf(b))).stream().collect(Collectors.toMap(ViewSection::id, s -> s));
        assertEquals(String.valueOf(a), sections.get("step-a").choice().selected());
        assertEquals(String.valueOf(b), sections.get("step-b").choice().selected());
        Map<String, Long> shownA = new TreeMap<>();
        Map<String, Long> shownB = new TreeMap<>();
        for (List<Object> row : sections.get("compare-kernels").rows()) {
            if (row.get(3) != null) {
                shownA.put((String) row.get(0), ((Number) row.get(3)).longValue());
            }
            if (row.get(4) != null) {
                shownB.put((String) row.get(0), ((Number) row.get(4)).longValue());
            }
        }
        JsonNode events;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
            events = new ObjectMapper().readTree(in).get("traceEvents");
        }
        assertEquals(kernelsOfStep(events, a), shownA);
        assertEquals(kernelsOfStep(events, b), shownB);
        assertTrue(shownA.size() > 10);
        // the step rows themselves: A's and B's step times are the summary's
        List<Object> stepRow = sections.get("compare-steps").rows().get(0);
        assertEquals(steps.get(1).durationNanos(), ((Number) stepRow.get(3)).longValue());
        assertEquals(steps.get(steps.size() - 1).durationNanos(), ((Number) stepRow.get(4)).longValue());
    }

    /** The device work launched by a runtime call that started in the step's span, summed by name, in ns. */
    private static Map<String, Long> kernelsOfStep(JsonNode events, long step) {
        long from = -1;
        long to = -1;
        Map<Long, Long> launchedAt = new HashMap<>();
        for (JsonNode e : events) {
            if (e.path("name").asText().equals("ProfilerStep#" + step)) {
                from = nanos(e.get("ts"));
                to = from + nanos(e.get("dur"));
            }
            if (e.path("cat").asText().equals("cuda_runtime") && e.path("args").has("correlation")) {
                launchedAt.put(e.get("args").get("correlation").asLong(), nanos(e.get("ts")));
            }
        }
        Map<String, Long> out = new TreeMap<>();
        for (JsonNode e : events) {
            String cat = e.path("cat").asText();
            if (!(cat.equals("kernel") || cat.equals("gpu_memcpy") || cat.equals("gpu_memset"))) {
                continue;
            }
            Long at = launchedAt.get(e.path("args").path("correlation").asLong(-1));
            if (at != null && at >= from && at < to) {
                out.merge(e.get("name").asText(), nanos(e.get("dur")), Long::sum);
            }
        }
        return out;
    }

    private static long nanos(JsonNode micros) {
        return new BigDecimal(micros.asText()).movePointRight(3).longValueExact();
    }
}
