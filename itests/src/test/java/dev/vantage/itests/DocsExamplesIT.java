package dev.vantage.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.zip.GZIPInputStream;

import javax.inject.Inject;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.vantage.examples.BasicProfile;
import dev.vantage.examples.CustomScopes;
import dev.vantage.examples.DeviceMemory;
import dev.vantage.examples.InferenceProfile;
import dev.vantage.examples.MemoryProfile;
import dev.vantage.examples.ParallelInference;
import dev.vantage.examples.ScheduleAndHandler;
import dev.vantage.profiler.api.MemoryAdmin;
import dev.vantage.profiler.api.MemoryTracker;
import dev.vantage.profiler.api.Profiler;
import dev.vantage.profiler.api.ProfilerEvent;
import dev.vantage.profiler.trace.EventKind;

/** Runs every example of docs/profiling.md in the full distribution, against the real profiler, and checks it. */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class DocsExamplesIT {

    @Inject
    private Profiler profiler;

    @Inject
    private MemoryAdmin memoryAdmin;

    @Configuration
    public Option[] config() throws IOException {
        return Distributions.options("full", Paths.get("target/it-deploy-docs").toAbsolutePath());
    }

    @Test
    public void basic() {
        String table = BasicProfile.run(profiler);
        // which ops make the top 15 depends on timing; that there are 15, all of the training step, does not
        List<String> rows = table.lines().skip(3).takeWhile(l -> !l.startsWith("---")).map(String::trim).toList();
        assertEquals(table, 15, rows.size());
        for (String row : rows) {
            assertTrue(row, row.startsWith("aten::") || row.startsWith("autograd::")
                    || row.startsWith("torch::autograd::") || row.matches("\\w+Backward0 .*")
                    || row.startsWith("Optimizer.") || row.startsWith("ProfilerStep#"));
        }
        assertTrue(table, table.contains("Self CPU time total"));
    }

    @Test
    public void memory() {
        String table = MemoryProfile.run(profiler);
        assertTrue(table, table.contains("Self CPU Mem"));
        // a 256x256 float32 product: 256 KiB (and the allocator's few bytes of bookkeeping) by aten::mm itself
        assertTrue(table, table.lines().anyMatch(l -> l.trim().startsWith("aten::mm")
                && l.matches(".*\\s256\\.\\d\\d Kb\\s+256\\.\\d\\d Kb\\s.*")));
    }

    @Test
    public void deviceMemoryTracksPeaksAndWritesASnapshot() throws Exception {
        Path snapshot = Files.createTempDirectory("vantage-docs").resolve("npu.pickle");
        MemoryTracker memory = DeviceMemory.run(memoryAdmin, snapshot);
        MemoryTracker.Peak npu = memory.peaks().get(0);
        assertEquals("npu:0", npu.device());
        // a, a @ a and its relu: three 4 MiB float32 matrices at once, in segments of whole 2 MiB multiples
        assertTrue(npu.toString(), npu.allocated() >= 12L << 20 && npu.allocated() <= npu.reserved());
        assertEquals(npu.toString(), 0, npu.reserved() % (2L << 20));
        assertTrue(Files.size(snapshot) > 0);
    }

    @Test
    public void inferenceGroupedByShape() {
        String table = InferenceProfile.run(profiler);
        assertTrue(table, table.contains("Input Shapes"));
        assertTrue(table, table.contains("[[1, 128]"));
        assertTrue(table, table.contains("[[32, 128]"));
        assertTrue("no autograd in inference: " + table, !table.contains("Backward0"));
    }

    @Test
    public void parallelInferenceRecordsEveryThread() throws Exception {
        assertEquals(4, ParallelInference.run(profiler));
    }

    @Test
    public void customScopesNestTheirOps() {
        List<ProfilerEvent> events = CustomScopes.run(profiler);
        ProfilerEvent forward = events.stream().filter(e -> e.name().equals("forward")).findFirst().orElseThrow();
        assertEquals(EventKind.USER_ANNOTATION, forward.kind());
        assertTrue(events.stream().anyMatch(e -> e.name().equals("aten::matmul") && e.parentId() == forward.id()));
        assertTrue(events.stream().anyMatch(e -> e.name().equals("load-batch")));
    }

    @Test
    public void scheduleWritesOneTraceOfTheActiveSteps() throws Exception {
        Path dir = Files.createTempDirectory("vantage-docs");
        List<Path> written = ScheduleAndHandler.run(profiler, dir);
        assertEquals(List.of(dir.resolve("cycle1.trace.json.gz")), written);
        Set<String> steps = new TreeSet<>();
        try (InputStream in = new GZIPInputStream(Files.newInputStream(written.get(0)))) {
            for (JsonNode e : new ObjectMapper().readTree(in).get("traceEvents")) {
                if (e.path("name").asText().startsWith("ProfilerStep#")) {
                    steps.add(e.get("name").asText());
                }
            }
        }
        // wait 1, warmup 1, active 2: steps 2 and 3
        assertEquals(Set.of("ProfilerStep#2", "ProfilerStep#3"), steps);
    }
}
