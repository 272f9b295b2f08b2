package dev.vantage.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import javax.inject.Inject;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.BundleContext;

import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.api.EventAverage;
import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.api.ProfileResult;
import dev.vantage.profiler.api.Profiler;
import dev.vantage.profiler.api.Schedule;
import dev.vantage.profiler.api.SortKey;
import dev.vantage.tensor.Device;
import dev.vantage.trace.engine.read.TraceReader;
import dev.vantage.trace.engine.summary.OpStats;
import dev.vantage.trace.engine.summary.TraceSummary;

/**
 * One trace engine: the table a profile prints ({@code keyAverages().table()}) and the operator table
 * {@code vantage report} computes from the trace that profile exported are the same rows with the same numbers, for
 * the Chrome JSON and for the {@code .pftrace}: same names, calls, self and total host times and device times (within
 * 1 ns), {@code ProfilerStep#N} and {@code Optimizer.step#SGD.step} included. A training run on the emulated NPU, so
 * that the rows hold ops, annotations, steps, runtime calls and kernels. The traces are read back with the engine's
 * readers, report's code; the {@code .pftrace} reader needs perfetto-format, which the distributions do not hold as
 * a bundle (the perfetto exporter embeds it), so this test installs it beside them.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class OneEngineIT {

    @Inject
    private BundleContext context;

    @Inject
    private Profiler profiler;

    @Configuration
    public Option[] config() throws IOException {
        // the full distribution holds perfetto-format, the engine's .pftrace reader (the board feature needs it)
        return Distributions.options("full", Paths.get("target/it-deploy-one-engine").toAbsolutePath());
    }

    @Test
    public void theTableAndTheReportOfItsExportedTraceAreTheSameRows() throws Exception {
        Device npu = new Device("npu", 0);
        Distributions.await(() -> dev.vantage.tensor.Devices.installed().stream()
                .anyMatch(d -> d.type().equals("npu")), "npu backend installed");
        List<ProfileResult> cycles = new ArrayList<>();
        Profile profile = profiler.profile().activities(Activity.CPU, Activity.NPU)
                .schedule(Schedule.of(0, 1, 3, 1, 0)).onTraceReady(cycles::add).start();
        Distributions.workload(context, "mlp-train").run(PlatformIT.context(5, profile::step, npu));
        profile.stop();
        assertEquals(1, cycles.size());
        ProfileResult live = cycles.get(0);
        String table = live.keyAverages().table(SortKey.SELF_CPU_TIME_TOTAL, 500);
        System.out.println(table);

        Path dir = Files.createTempDirectory("vantage-one-engine");
        Path chrome = dir.resolve("run.trace.json.gz");
        Path perfetto = dir.resolve("run.pftrace");
        live.export("chrome", chrome);
        live.export("perfetto", perfetto);

        Map<String, EventAverage> rows = new HashMap<>();
        for (EventAverage r : live.keyAverages().rows()) {
            rows.put(r.key(), r);
            // torch's table cuts a name of 52 characters or more to its first 52 and "..."
            String shown = r.key().length() >= 52 ? r.key().substring(0, 52) + "..." : r.key();
            assertTrue("the table shows " + shown, table.contains(shown));
        }
        assertTrue(rows.keySet().toString(), rows.containsKey("ProfilerStep#1") && rows.containsKey("ProfilerStep#3")
                && rows.containsKey("Optimizer.step#SGD.step") && rows.containsKey("aten::mm"));
        assertTrue("runtime calls and kernels are rows too",
                rows.values().stream().anyMatch(r -> r.cpuTotalNanos() == 0 && r.deviceTotalNanos() > 0));
        for (Path file : List.of(chrome, perfetto)) {
            TraceSummary report = TraceReader.summary(file);
            Map<String, OpStats> read = new HashMap<>();
            report.ops().forEach(o -> read.put(o.name(), o));
            assertEquals(file + ": the same rows", new TreeSet<>(rows.keySet()), new TreeSet<>(read.keySet()));
            for (EventAverage r : rows.values()) {
                OpStats o = read.get(r.key());
                String what = file.getFileName() + " " + r.key();
                assertNotNull(what, o);
                assertEquals(what + " calls", r.count(), o.count());
                assertEquals(what + " self", r.selfCpuNanos(), o.selfNanos(), 1);
                assertEquals(what + " total", r.cpuTotalNanos(), o.totalNanos(), 1);
                assertEquals(what + " device self", r.selfDeviceNanos(), o.deviceSelfNanos(), 1);
                assertEquals(what + " device total", r.deviceTotalNanos(), o.deviceTotalNanos(), 1);
            }
        }
    }
}
