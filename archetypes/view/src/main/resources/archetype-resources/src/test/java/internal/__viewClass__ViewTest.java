package ${package}.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import dev.vantage.board.api.BoardRun;
import dev.vantage.board.api.ViewSection;
import dev.vantage.trace.engine.AnalysedTrace;
import dev.vantage.trace.engine.read.TraceReader;
import dev.vantage.trace.engine.summary.TraceSummary;

/**
 * The view over PyTorch traces in Kineto's JSON that the test writes itself, read by the trace engine as the board
 * reads a run: the figures expected are the ones written into the file.
 */
public class ${viewClass}ViewTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    /** Two profiler steps on host thread 7: operators, two kernel launches and their kernels on stream 7. */
    private static final String[] TWO_STEPS = {
        event("user_annotation", "ProfilerStep#1", 1, 7, 100, 100, "\"External id\": 1"),
        event("cpu_op", "aten::linear", 1, 7, 110, 60, "\"External id\": 10"),
        event("cpu_op", "aten::addmm", 1, 7, 115, 40, "\"External id\": 11"),
        event("cuda_runtime", "cudaLaunchKernel", 1, 7, 120, 5, "\"External id\": 11, \"correlation\": 1"),
        event("kernel", "gemm", 0, 7, 126, 30, "\"External id\": 11, \"correlation\": 1, \"device\": 0,"
                + " \"stream\": 7"),
        event("user_annotation", "ProfilerStep#2", 1, 7, 200, 50, "\"External id\": 2"),
        event("cpu_op", "aten::relu", 1, 7, 210, 20, "\"External id\": 12"),
        event("cuda_runtime", "cudaLaunchKernel", 1, 7, 212, 3, "\"External id\": 12, \"correlation\": 2"),
        event("kernel", "relu_kernel", 0, 7, 215, 8, "\"External id\": 12, \"correlation\": 2, \"device\": 0,"
                + " \"stream\": 7"),
    };

    /** A complete event as Kineto writes it: microseconds. */
    private static String event(String cat, String name, int pid, int tid, long ts, long dur, String args) {
        return String.format(Locale.ROOT, "{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": %d,"
                + " \"tid\": %d, \"ts\": %d, \"dur\": %d, \"args\": {%s}}", cat, name, pid, tid, ts, dur, args);
    }

    private Path trace(String... events) throws IOException {
        Path file = tmp.newFolder().toPath().resolve("worker0.pt.trace.json");
        Files.writeString(file, "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"GPU\"}],"
                + " \"traceEvents\": [" + String.join(",\n", events) + "]}", StandardCharsets.UTF_8);
        return file;
    }

    /** A run of a file, as the board hands it to a view. */
    private static BoardRun run(Path file) throws IOException {
        TraceSummary summary = TraceReader.summary(file);
        return new BoardRun() {
            public String id() {
                return "run";
            }

            public String name() {
                return file.getFileName().toString();
            }

            public Path file() {
                return file;
            }

            public Map<String, String> tags() {
                return Map.of();
            }

            public TraceSummary summary() {
                return summary;
            }

            public List<Table> analyses() {
                return List.of();
            }

            public List<TraceSummary> job() {
                return List.of(summary);
            }

            public <T> T read(Function<AnalysedTrace, T> function) throws IOException {
                try (AnalysedTrace t = TraceReader.read(file)) {
                    return function.apply(t);
                }
            }
        };
    }

    private static Map<String, ViewSection> sections(List<ViewSection> rendered) {
        Map<String, ViewSection> byId = new LinkedHashMap<>();
        rendered.forEach(s -> byId.put(s.id(), s));
        return byId;
    }

    /** A column of a table's rows. */
    private static List<Object> column(ViewSection table, int index) {
        List<Object> values = new ArrayList<>();
        table.rows().forEach(r -> values.add(r.get(index)));
        return values;
    }

    @Test
    public void sumsEveryEventByKindLongestFirst() throws Exception {
        ${viewClass}View view = new ${viewClass}View();
        BoardRun run = run(trace(TWO_STEPS));
        assertTrue(view.appliesTo(run));
        Map<String, ViewSection> sections = sections(view.render(run));
        assertEquals(List.of("time-by-kind", "kinds", "choose-kind", "longest"), List.copyOf(sections.keySet()));

        ViewSection kinds = sections.get("kinds");
        // by total time: steps 150 µs, operators 120, kernels 38, launches 8
        assertEquals(List.of("user_annotation", "cpu_op", "kernel", "runtime"), column(kinds, 0));
        assertEquals(List.of(2L, 3L, 2L, 2L), column(kinds, 1));
        assertEquals(List.of(150_000L, 120_000L, 38_000L, 8_000L), column(kinds, 2));
        assertEquals(List.of(100_000L, 60_000L, 30_000L, 5_000L), column(kinds, 3));
        assertNotNull(sections.get("time-by-kind").chart());

        ViewSection longest = sections.get("longest");
        assertEquals(List.of("ProfilerStep#1", "aten::linear", "ProfilerStep#2",
                "aten::addmm", "gemm", "aten::relu", "relu_kernel", "cudaLaunchKernel", "cudaLaunchKernel"),
                column(longest, 0));
        assertEquals(List.of(100_000L, 60_000L, 50_000L, 40_000L, 30_000L, 20_000L, 8_000L, 5_000L, 3_000L),
                column(longest, 4));
        // start from the trace's start, the first step's
        assertEquals(10_000L, longest.rows().get(1).get(3));
        assertEquals(ALL_KINDS, sections.get("choose-kind").choice().selected());
    }

    private static final String ALL_KINDS = ${viewClass}View.ALL;

    @Test
    public void showsTheLongestEventsOfTheKindChosen() throws Exception {
        ${viewClass}View view = new ${viewClass}View();
        Map<String, ViewSection> sections = sections(view.render(run(trace(TWO_STEPS)),
                Map.of(${viewClass}View.KIND, "kernel")));
        ViewSection longest = sections.get("longest");
        assertEquals(List.of("gemm", "relu_kernel"), column(longest, 0));
        assertEquals(List.of("kernel", "kernel"), column(longest, 1));
        // the kinds stay those of the whole run
        assertEquals(4, sections.get("kinds").rows().size());
        ViewSection.Choice choice = sections.get("choose-kind").choice();
        assertEquals("kernel", choice.selected());
        assertTrue(choice.options().toString(), choice.options().contains(List.of("cpu_op", "cpu_op")));
    }

    @Test
    public void keepsOnlyTheLongestHundredOfALongRun() throws Exception {
        // 250 operators of 1 to 250 µs, written in an order that is not their durations'
        String[] events = new String[250];
        for (int i = 0; i < events.length; i++) {
            long dur = (i * 97L) % 250 + 1;
            events[i] = event("cpu_op", "op" + dur, 1, 7, 1_000L * i, dur, "\"External id\": " + (i + 1));
        }
        ViewSection longest = sections(new ${viewClass}View().render(run(trace(events)))).get("longest");
        assertEquals(${viewClass}View.LONGEST, longest.rows().size());
        for (int r = 0; r < longest.rows().size(); r++) {
            assertEquals("op" + (250 - r), longest.rows().get(r).get(0));
            assertEquals((250L - r) * 1_000, longest.rows().get(r).get(4));
        }
    }

    @Test
    public void anUnknownKindShowsEveryKind() throws Exception {
        Map<String, ViewSection> sections = sections(new ${viewClass}View().render(run(trace(TWO_STEPS)),
                Map.of(${viewClass}View.KIND, "no-such-kind")));
        assertEquals(9, sections.get("longest").rows().size());
        assertEquals(ALL_KINDS, sections.get("choose-kind").choice().selected());
        assertFalse(sections.get("longest").note().contains("no-such-kind"));
    }
}
