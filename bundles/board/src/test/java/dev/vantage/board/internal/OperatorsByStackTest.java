package dev.vantage.board.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import dev.vantage.board.api.ViewSection;
import dev.vantage.board.internal.views.OperatorsView;

/** A trace recorded with stacks shows its operators by call stack; one without does not offer the table. */
public class OperatorsByStackTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private static String op(String name, long ts, long dur, String stack) {
        return "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"" + name + "\", \"pid\": 1, \"tid\": 1, \"ts\": " + ts
                + ", \"dur\": " + dur + ", \"args\": {\"External id\": " + ts
                + (stack == null ? "" : ", \"Call stack\": \"" + stack + "\"") + "}}";
    }

    @Test
    public void theOperatorsViewShowsEachOpsCallStacksWhenRecorded() throws Exception {
        Path root = Files.createDirectories(tmp.getRoot().toPath().resolve("logs"));
        Files.writeString(root.resolve("stacks.pt.trace.json"), "{\"traceEvents\": [" + String.join(", ",
                op("aten::mm", 10, 5, "model.py(12): forward;train.py(40): step"),
                op("aten::mm", 20, 9, "model.py(20): head;train.py(40): step"),
                op("aten::relu", 40, 2, "model.py(13): forward;train.py(40): step")) + "]}");
        Files.writeString(root.resolve("plain.pt.trace.json"), "{\"traceEvents\": [" + op("aten::mm", 10, 5, null)
                + "]}");
        Runs runs = new Runs(new Logdir(root), 8, () -> 0L);
        for (Logdir.Found f : runs.list()) {
            List<ViewSection> sections = new OperatorsView().render(runs.analysed(f));
            ViewSection stacks = sections.stream().filter(s -> s.id().equals("operators-by-stack")).findFirst()
                    .orElse(null);
            if (f.name().startsWith("plain")) {
                assertEquals(null, stacks);
                continue;
            }
            assertEquals(3, stacks.rows().size());
            List<Object> first = stacks.rows().get(0);
            assertEquals(List.of("aten::mm", "model.py(20): head; train.py(40): step", 1L, 9_000L), first.subList(0,
                    4));
            assertTrue(stacks.rows().stream().anyMatch(r -> r.get(0).equals("aten::relu") && r.get(3).equals(2_000L)));
        }
    }
}
