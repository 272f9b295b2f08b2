package dev.vantage.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;

import javax.inject.Inject;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;
import org.osgi.framework.wiring.BundleRevision;
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.osgi.service.component.runtime.dto.ComponentConfigurationDTO;
import org.osgi.service.component.runtime.dto.ComponentDescriptionDTO;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import dev.vantage.cli.Cli;
import dev.vantage.cli.LaunchedCommand;
import dev.vantage.cli.ParsedCommand;
import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.api.Profiler;
import dev.vantage.profiler.api.ProfilerEvent;
import dev.vantage.device.npu.driver.NpuDriver;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.workload.Workload;
import dev.vantage.tensor.workload.WorkloadContext;
import dev.vantage.profiler.trace.EventKind;

/** Boots the {@code full} distribution in Felix and checks it is healthy, profiles, and takes exporters live. */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class PlatformIT {

    @Inject
    private BundleContext context;

    @Inject
    private Profiler profiler;

    @Inject
    private ServiceComponentRuntime scr;

    @Configuration
    public Option[] config() throws IOException {
        return Distributions.options("full", Paths.get("target/it-deploy-full").toAbsolutePath());
    }

    @Test
    public void everyBundleOfTheDistributionIsActive() {
        int ours = 0;
        for (Bundle b : context.getBundles()) {
            boolean fragment = (b.adapt(BundleRevision.class).getTypes() & BundleRevision.TYPE_FRAGMENT) != 0;
            if (!fragment) {
                assertEquals(b.getSymbolicName() + " state", Bundle.ACTIVE, b.getState());
            }
            if (b.getSymbolicName().startsWith("dev.vantage.")) {
                ours++;
            }
        }
        // api, the trace engine, core, on-demand, tensor, workloads, verbs, the files bundle, 5 exporters (chrome, csv,
        // tensorboard, parquet, perfetto), cpu, the device kit, npu, spyre, mps, onnxruntime, the board and perfetto-format
        // (the engine's .pftrace reader, which the board reads with); the command tree (cli) is the launcher's, which
        // its framework exports, and the analysis library is not a platform bundle (lib/analysis)
        assertEquals("Vantage bundles in the full distribution", 21, ours);
    }

    @Test
    public void everyComponentIsSatisfiedOnceTheLauncherServiceIsThere() throws Exception {
        // the verbs bundle's command component waits for the launcher's command service: play the launcher, with
        // the command tree's own classes, which the framework exports as the launcher's does
        CompletableFuture<Integer> exit = new CompletableFuture<>();
        ParsedCommand exporters = Cli.parse(List.of("exporters"), Map.of());
        Hashtable<String, Object> props = new Hashtable<>();
        props.put("vantage.launcher", "command");
        ServiceRegistration<LaunchedCommand> reg = context.registerService(LaunchedCommand.class,
                new LaunchedCommand() {
                    @Override
                    public ParsedCommand command() {
                        return exporters;
                    }

                    @Override
                    public void exit(int code) {
                        exit.complete(code);
                    }
                }, props);
        try {
            assertEquals("exit code of 'exporters' run through the verbs bundle", Integer.valueOf(0),
                    exit.get(20, TimeUnit.SECONDS));
            List<String> unsatisfied = new ArrayList<>();
            int count = 0;
            for (ComponentDescriptionDTO d : scr.getComponentDescriptionDTOs()) {
                if (!d.bundle.symbolicName.startsWith("dev.vantage.")) {
                    continue;
                }
                for (ComponentConfigurationDTO c : scr.getComponentConfigurationDTOs(d)) {
                    count++;
                    if (c.state != ComponentConfigurationDTO.ACTIVE && c.state != ComponentConfigurationDTO.SATISFIED) {
                        unsatisfied.add(d.name + " state " + c.state);
                    }
                }
            }
            assertTrue("unsatisfied: " + unsatisfied, unsatisfied.isEmpty());
            assertTrue("components found: " + count, count >= 7);
        } finally {
            reg.unregister();
        }
    }

    @Test
    public void profilingTheMatmulWorkloadRecordsCpuOpsAndExportsThem() throws Exception {
        Workload matmul = workload("matmul");
        Profile profile = profiler.profile().start();
        matmul.run(context(3, profile::step));
        profile.stop();

        Map<String, Integer> counts = new HashMap<>();
        for (ProfilerEvent e : profile.events()) {
            assertTrue(e.name() + " duration", e.durationNanos() >= 0);
            if (e.kind() == EventKind.CPU_OP) {
                counts.merge(e.name(), 1, Integer::sum);
            } else {
                // the only other events a CPU profile of this workload may hold are JVM pauses
                assertEquals(e.name(), EventKind.GC, e.kind());
            }
        }
        assertEquals(Map.of("aten::matmul", 3, "aten::mm", 3, "aten::add", 3, "aten::sum", 3), counts);
        assertEquals(3, profile.stepNumber());

        Path file = Files.createTempDirectory("vantage-it").resolve("matmul.trace.json.gz");
        profile.exportChromeTrace(file);
        assertEquals("cpu_op events read back from the file", 12, countCpuOps(file));
    }

    @Test
    public void anExporterBundleUninstalledAndInstalledAtRuntimeComesAndGoes() throws Exception {
        Bundle chrome = bundle("dev.vantage.exporter.chrome");
        assertTrue(profiler.exporterFormats().contains("chrome"));
        String location = chrome.getLocation();
        chrome.uninstall();
        Distributions.await(() -> !profiler.exporterFormats().contains("chrome"), "chrome exporter gone");

        Bundle again = context.installBundle(location);
        again.start();
        Distributions.await(() -> profiler.exporterFormats().contains("chrome"), "chrome exporter back");
        assertEquals("dev.vantage.exporter.chrome", profiler.exporters().get(0).bundle());
    }

    @Test
    public void aDeviceBundleUninstalledWhileAProfileRecordsKeepsItsEventsSoFarAndSaysSo() throws Exception {
        Bundle npu = bundle("dev.vantage.device.npu");
        String location = npu.getLocation();
        Device device = new Device("npu", 0);
        Distributions.await(() -> dev.vantage.tensor.Devices.installed().stream()
                .anyMatch(d -> d.type().equals("npu")), "npu backend installed");
        Profile profile = profiler.profile().activities(Activity.CPU, Activity.NPU).start();
        try {
            workload("mlp-train").run(context(2, profile::step, device));
            npu.uninstall();
            Distributions.await(() -> dev.vantage.tensor.Devices.installed().stream()
                    .noneMatch(d -> d.type().equals("npu")), "npu backend gone");
        } finally {
            profile.stop();
        }
        try {
            long kernels = profile.events().stream().filter(e -> e.kind() == EventKind.KERNEL).count();
            assertTrue("kernels recorded before the bundle left: " + kernels, kernels >= 2);
            Map<String, String> metadata = profile.trace().metadata();
            assertTrue(metadata.toString(), metadata.getOrDefault("vantage.device.npu.left", "").contains("left"));
            assertEquals("true", metadata.get("vantage.device.npu.emulated"));
        } finally {
            context.installBundle(location).start();
            Distributions.await(() -> dev.vantage.tensor.Devices.installed().stream()
                    .anyMatch(d -> d.type().equals("npu")), "npu backend back");
        }
    }

    @Test
    public void aVendorDriverTakesOverAndGivesWayWhileAProfileRecordsAndNoKernelIsLost() throws Exception {
        Device npu = new Device("npu", 0);
        Distributions.await(() -> dev.vantage.tensor.Devices.installed().stream()
                .anyMatch(d -> d.type().equals("npu")), "npu backend installed");
        ServiceReference<NpuDriver> emulatedRef = context.getServiceReference(NpuDriver.class);
        ForwardingNpuDriver vendor = new ForwardingNpuDriver(context.getService(emulatedRef));
        Hashtable<String, Object> props = new Hashtable<>();
        props.put("service.ranking", 100);
        Tensor a = Tensor.randn(7, 16, 16);
        float[] expected = a.mm(a).toFloatArray();
        Tensor onNpu = a.to(npu);
        Profile profile = profiler.profile().activities(Activity.CPU, Activity.NPU).start();
        ServiceRegistration<NpuDriver> registration = null;
        float[][] results = new float[3][];
        try {
            results[0] = threeProducts(onNpu);
            registration = context.registerService(NpuDriver.class, vendor, props);
            results[1] = threeProducts(onNpu);
            registration.unregister();
            registration = null;
            results[2] = threeProducts(onNpu);
        } finally {
            if (registration != null) {
                registration.unregister();
            }
            profile.stop();
            context.ungetService(emulatedRef);
        }
        for (float[] r : results) {
            org.junit.Assert.assertArrayEquals(expected, r, 1e-4f);
        }
        assertEquals("kernels launched while the vendor driver held the device", 3, vendor.launches.get());
        List<ProfilerEvent> events = profile.events();
        List<ProfilerEvent> mms = events.stream().filter(e -> e.name().equals("aten::mm") && e.kind() == EventKind.CPU_OP)
                .toList();
        List<ProfilerEvent> kernels = events.stream().filter(e -> e.kind() == EventKind.KERNEL).toList();
        assertEquals("mm ops on the npu", 9, mms.size());
        assertEquals("one kernel per mm, before, during and after the vendor driver", 9, kernels.size());
        for (ProfilerEvent k : kernels) {
            assertTrue(k.name() + " is linked to the op that launched it", mms.stream()
                    .anyMatch(m -> m.correlationId() == k.correlationId() && k.correlationId() >= 0));
        }
        Map<String, String> metadata = profile.trace().metadata();
        assertEquals(metadata.toString(), "2", metadata.get("vantage.device.npu.driver_swaps"));
        String in = metadata.get("vantage.device.npu.driver_swap.1");
        String out = metadata.get("vantage.device.npu.driver_swap.2");
        assertTrue(in, in.startsWith("dev.vantage.device.npu.internal.EmulatedNpuDriver (emulated) -> "
                + ForwardingNpuDriver.class.getName() + " (emulated) at +"));
        assertTrue(out, out.startsWith(ForwardingNpuDriver.class.getName()
                + " (emulated) -> dev.vantage.device.npu.internal.EmulatedNpuDriver (emulated) at +"));
    }

    /** Computes a·a three times on the device and returns the last product, read back on the host. */
    private static float[] threeProducts(Tensor a) {
        Tensor p = null;
        for (int i = 0; i < 3; i++) {
            p = a.mm(a);
        }
        return p.toFloatArray();
    }

    private Bundle bundle(String symbolicName) {
        for (Bundle b : context.getBundles()) {
            if (symbolicName.equals(b.getSymbolicName())) {
                return b;
            }
        }
        throw new AssertionError("no bundle " + symbolicName);
    }

    private Workload workload(String name) throws Exception {
        return Distributions.workload(context, name);
    }

    static WorkloadContext context(int steps, Runnable onStep) {
        return context(steps, onStep, Device.CPU);
    }

    static WorkloadContext context(int steps, Runnable onStep, Device device) {
        return new WorkloadContext() {
            @Override
            public int steps() {
                return steps;
            }

            @Override
            public long seed() {
                return 7;
            }

            @Override
            public Device device() {
                return device;
            }

            @Override
            public PrintStream out() {
                return System.out;
            }

            @Override
            public void step() {
                onStep.run();
            }
        };
    }

    /** Counts {@code "cat": "cpu_op"} events with Jackson's streaming parser, independent of our writer. */
    static int countCpuOps(Path gz) throws IOException {
        int count = 0;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(gz));
                JsonParser p = new JsonFactory().createParser(in)) {
            boolean inEvents = false;
            int depth = 0;
            while (p.nextToken() != null) {
                JsonToken t = p.currentToken();
                if (t == JsonToken.FIELD_NAME && depth == 1 && p.currentName().equals("traceEvents")) {
                    inEvents = true;
                } else if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
                    depth++;
                } else if (t == JsonToken.END_OBJECT || t == JsonToken.END_ARRAY) {
                    depth--;
                } else if (inEvents && t == JsonToken.VALUE_STRING && depth == 3 && "cat".equals(p.currentName())
                        && "cpu_op".equals(p.getText())) {
                    count++;
                }
            }
        }
        assertFalse("trace must hold events", count == 0);
        return count;
    }
}
