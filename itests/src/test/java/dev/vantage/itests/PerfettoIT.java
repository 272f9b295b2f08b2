package dev.vantage.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import dev.vantage.exporter.perfetto.compare.ExportComparison;
import dev.vantage.perfetto.format.PerfettoTrace;
import dev.vantage.perfetto.format.PerfettoTraceReader;

/**
 * The {@code perfetto} exporter in the built distributions: a profiled training run on the emulated NPU written as
 * Chrome JSON and as {@code .pftrace} shows the same tracks, slices, nesting, flows and memory in both; the bundle
 * hot-deploys into the minimal distribution as one jar (its protobuf classes are inside); {@code assemble} builds a
 * distribution with it.
 */
public class PerfettoIT {

    private static final Path FULL = Distributions.home("full");

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Test
    public void aProfiledNpuTrainingRunWritesAPftraceThatMatchesItsChromeExport() throws Exception {
        Path dir = tmp.newFolder("profiles").toPath();
        LauncherProcess.Result r = LauncherProcess.run(FULL, "run", "mlp-train", "--device", "npu", "--steps", "5",
                "--profile", "--profile-activities", "CPU", "NPU", "MEM", "--profile-export", "chrome", "perfetto",
                "--profile-dir", dir.toString(), "--profile-name", "mlp");
        assertEquals(r.err(), 0, r.exitCode());
        Path pftrace = dir.resolve("mlp.pftrace");
        assertTrue(r.out(), r.out().contains("trace written: " + pftrace));
        ExportComparison.Summary s = ExportComparison.assertSameTrace(dir.resolve("mlp.trace.json.gz"), pftrace);
        assertTrue(s.toString(), s.slices() > 300 && s.ac2g() > 10 && s.fwdbwd() > 10 && s.memoryValues() > 10);

        PerfettoTrace trace = PerfettoTraceReader.read(pftrace);
        assertEquals(List.of(), trace.problems());
        assertTrue(trace.tracks().stream().anyMatch(t -> t.name().equals("NPU 0 (emulated)")));
        assertTrue(trace.tracks().stream().anyMatch(t -> t.name().equals("NPU 0 memory allocated")));
        assertTrue(trace.tracks().stream().anyMatch(t -> t.name().equals("Step time")));
        assertEquals("npu:0", trace.attributes().get("emulated_devices"));
        assertEquals("{\"backend\": \"none\", \"rank\": 0, \"world_size\": 1}",
                trace.attributes().get("distributedInfo"));
        // each recorded step's time as a counter value (the default schedule records steps 1 to 3)
        long steps = trace.slices().stream().filter(x -> x.name().startsWith("ProfilerStep#")).count();
        assertEquals(3, steps);
        assertEquals(steps, trace.counters().stream()
                .filter(c -> trace.track(c.trackUuid()).name().equals("Step time")).count());
    }

    @Test
    public void theExporterHotDeploysIntoTheMinimalDistributionAsOneJar() throws Exception {
        Path deploy = tmp.newFolder("deploy").toPath();
        try (LauncherProcess serve = LauncherProcess.start(FULL, "serve", "--distribution", "minimal",
                "--deploy-dir", deploy.toString())) {
            serve.awaitLine("platform up: distribution minimal");
            Path jar = deploy.resolve("exporter-perfetto.jar");
            Files.copy(Distributions.fullBundle("exporter-perfetto-"), jar);
            serve.awaitLine("exporter registered: perfetto (dev.vantage.exporter.perfetto 0.1.0)");
            Files.delete(jar);
            serve.awaitLine("exporter unregistered: perfetto (dev.vantage.exporter.perfetto 0.1.0)");
        }
    }

    @Test
    public void aDistributionAssembledWithThePerfettoFeatureWritesPftraces() throws Exception {
        Path out = tmp.getRoot().toPath().resolve("small");
        LauncherProcess.Result assembled = LauncherProcess.run(FULL, "assemble", "--features",
                "core,workloads,device-cpu,exporter-perfetto", "--out", out.toString());
        assertEquals(assembled.err(), 0, assembled.exitCode());
        Path dir = tmp.newFolder("small-profiles").toPath();
        LauncherProcess.Result run = LauncherProcess.run(out, "run", "matmul", "--profile", "--profile-export",
                "perfetto", "--profile-dir", dir.toString(), "--profile-name", "mm");
        assertEquals(run.err(), 0, run.exitCode());
        try (Stream<Path> files = Files.list(dir)) {
            assertTrue(files.anyMatch(f -> f.getFileName().toString().equals("mm.pftrace")));
        }
        assertEquals(List.of(), PerfettoTraceReader.read(dir.resolve("mm.pftrace")).problems());
    }
}
