package dev.vantage.profiler.core.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;

import java.util.HashMap;
import java.util.Map;

import org.junit.Rule;
import org.junit.Test;

import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.api.RecordFunction;
import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;

/** Scopes with arguments: torch's record_function args, and record_param_comms as a CPU op carrying a collective. */
public class RecordFunctionArgsTest {

    @Rule
    public final TestProfiler active = new TestProfiler(1_000_000);
    private final ProfilerComponent profiler = active.component();

    @Test
    public void argumentsReachTheTraceOnTheirEventOnly() {
        assertFalse(RecordFunction.recording());
        // no profile: the shared do-nothing scope, whatever the arguments
        assertSame(RecordFunction.scope("idle"), RecordFunction.op("idle", Map.of("k", "v")));
        Profile p = profiler.profile().start();
        assertTrue(RecordFunction.recording());
        Map<String, String> comms = new HashMap<>();
        comms.put("Collective name", "allreduce");
        comms.put("In msg nelems", "2049000");
        comms.put("Process Group Ranks", "[0, 1]");
        try (RecordFunction op = RecordFunction.op("record_param_comms", comms)) {
            comms.put("Collective name", "changed after");   // the scope keeps what it was given
            try (RecordFunction inner = RecordFunction.scope("gloo:all_reduce", Map.of("Seq", "7"))) {
                try (RecordFunction plain = RecordFunction.scope("plain")) {
                    assertTrue(plain != null);
                }
            }
        }
        p.stop();
        Map<String, Map<String, String>> byName = new HashMap<>();
        Map<String, EventKind> kinds = new HashMap<>();
        EventCursor c = p.trace().events();
        while (c.next()) {
            byName.put(c.name(), c.args());
            kinds.put(c.name(), c.kind());
        }
        assertEquals(EventKind.CPU_OP, kinds.get("record_param_comms"));
        assertEquals(EventKind.USER_ANNOTATION, kinds.get("gloo:all_reduce"));
        assertEquals(Map.of("Collective name", "allreduce", "In msg nelems", "2049000", "Process Group Ranks",
                "[0, 1]"), byName.get("record_param_comms"));
        assertEquals(Map.of("Seq", "7"), byName.get("gloo:all_reduce"));
        assertEquals(Map.of(), byName.get("plain"));
    }

    @Test
    public void aScopeWithInputsCarriesItsShapesAsAnOpDoesWhenShapesAreRecorded() {
        Profile p = profiler.profile().recordShapes(true).start();
        try (RecordFunction op = RecordFunction.op("record_param_comms", Map.of(), new long[][] {{3, 4}},
                new String[] {"float"});
                RecordFunction inner = RecordFunction.scope("gloo:all_reduce", Map.of(), new long[][] {{3, 4}},
                        new String[] {"float"});
                RecordFunction plain = RecordFunction.scope("plain")) {
            assertTrue(plain != null);
        }
        p.stop();
        Map<String, String> shapes = new HashMap<>();
        EventCursor c = p.trace().events();
        while (c.next()) {
            shapes.put(c.name(), c.inputCount() == 0 ? "none"
                    : java.util.Arrays.toString(c.inputShape(0)) + " " + c.inputType(0));
        }
        assertEquals("[3, 4] float", shapes.get("record_param_comms"));
        // the TensorBoard plugin sizes a collective by its gloo:*/nccl:* scope's own Input Dims and Input type
        assertEquals("[3, 4] float", shapes.get("gloo:all_reduce"));
        assertEquals("none", shapes.get("plain"));
    }
}
