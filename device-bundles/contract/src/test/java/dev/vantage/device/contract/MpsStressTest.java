package dev.vantage.device.contract;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;

import dev.vantage.device.cpu.internal.CpuBackend;
import dev.vantage.device.kit.DriverSession;
import dev.vantage.device.mps.driver.MetalRecords;
import dev.vantage.device.mps.internal.EmulatedMetalDriver;
import dev.vantage.device.mps.internal.MpsActivitySource;
import dev.vantage.device.mps.internal.MpsBackend;
import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.spi.ActivitySession;
import dev.vantage.profiler.spi.DeviceActivities;
import dev.vantage.profiler.spi.DeviceActivity;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.GradMode;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.internal.Dispatcher;
import dev.vantage.tensor.nn.Layers;
import dev.vantage.tensor.nn.Linear;
import dev.vantage.tensor.nn.Module;
import dev.vantage.tensor.nn.Sequential;

/**
 * The MPS bundle under parallel inference: eight threads, each on its own stream of the pool, run a thousand
 * inferences each of one shared model at once, while a session records. Their outputs must be bitwise those of
 * the same inputs run one after another (and those of the host), and the trace must hold every launch exactly
 * once with exactly one piece of device work, none dropped.
 */
public class MpsStressTest {

    private static final int THREADS = 8;
    private static final int INFERENCES = 1_000;
    private static final int BATCH = 2;
    private static final Device MPS = new Device("mps", 0);

    private CpuBackend cpu;
    private EmulatedMetalDriver driver;

    @Before
    public void install() {
        Dispatcher.uninstallAll();
        cpu = new CpuBackend();
        Dispatcher.install(cpu, "test", "0");
        driver = new EmulatedMetalDriver(Map.of());
        Dispatcher.install(new MpsBackend(driver), "test", "0");
    }

    @After
    public void uninstall() {
        Dispatcher.uninstallAll();
        if (driver != null) {
            driver.close();
        }
        if (cpu != null) {
            cpu.deactivate();
        }
    }

    private static Module model() {
        return new Sequential(new Linear(64, 128, true, 21), Layers.relu(), new Linear(128, 10, true, 23));
    }

    /** The external correlation id of one inference: distinct per thread and inference. */
    private static long externalId(int thread, int inference) {
        return 1_000_000L + (long) thread * INFERENCES + inference;
    }

    private static int[] infer(Module model, Tensor input, Device on) {
        try (GradMode.Scope off = GradMode.disabled()) {
            float[] out = model.forward(input.to(on)).toFloatArray();
            int[] bits = new int[out.length];
            for (int i = 0; i < out.length; i++) {
                bits[i] = Float.floatToRawIntBits(out[i]);
            }
            return bits;
        }
    }

    @Test(timeout = 300_000)
    public void eightThreadsOnEightStreamsMatchASequentialRunAndLoseNoRecord() throws Exception {
        Module model = model();
        model.to(MPS);
        Tensor[][] inputs = new Tensor[THREADS][INFERENCES];
        for (int t = 0; t < THREADS; t++) {
            for (int i = 0; i < INFERENCES; i++) {
                inputs[t][i] = Tensor.randn(externalId(t, i), BATCH, 64);
            }
        }

        ActivitySession session = new MpsActivitySource(driver).configure(Set.of(Activity.MPS),
                Map.of(DriverSession.MAX_RECORDS, Integer.toString(1 << 20)));
        assertNotNull(session);
        int[][][] parallel = new int[THREADS][INFERENCES][];
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            Thread w = new Thread(() -> {
                try {
                    go.await();
                    for (int i = 0; i < INFERENCES; i++) {
                        session.pushCorrelation(externalId(thread, i));
                        try {
                            parallel[thread][i] = infer(model, inputs[thread][i], MPS);
                        } finally {
                            session.popCorrelation();
                        }
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "mps-infer-" + t);
            w.start();
            workers.add(w);
        }
        session.start();
        long began = System.nanoTime();
        go.countDown();
        for (Thread w : workers) {
            w.join();
        }
        long parallelMillis = (System.nanoTime() - began) / 1_000_000;
        session.stop();
        DeviceActivities d = session.collect();
        assertEquals(List.of(), failures);

        Module host = model();
        for (int t = 0; t < THREADS; t++) {
            for (int i = 0; i < INFERENCES; i++) {
                int[] sequential = infer(model, inputs[t][i], MPS);
                assertArrayEquals("thread " + t + " inference " + i + ": parallel against sequential", sequential,
                        parallel[t][i]);
                assertArrayEquals("thread " + t + " inference " + i + ": mps against the host",
                        infer(host, inputs[t][i], Device.CPU), sequential);
            }
        }

        assertEquals(d.errors().toString(), List.of(), d.errors());
        assertEquals(0, d.droppedRecords());
        assertEquals("0", d.metadata().get("buffer_dropped_records"));
        assertEquals("0", d.metadata().get("out_of_window_records"));
        assertEquals("0", d.metadata().get("unlinked_records"));

        Map<Long, DeviceActivity> launches = new HashMap<>();
        long commits = 0;
        for (DeviceActivity a : d.activities()) {
            if (a.kind() == EventKind.RUNTIME && a.name().equals(MetalRecords.COMMIT)) {
                commits++;
            } else if (a.kind() == EventKind.RUNTIME) {
                assertNull("launch " + a.flowId() + " recorded twice", launches.put(a.flowId(), a));
            }
        }
        Map<Long, DeviceActivity> work = new HashMap<>();
        Map<Long, Integer> launchesPerInference = new HashMap<>();
        Map<Long, Set<Long>> streamsPerThread = new HashMap<>();
        Set<Long> kernelStreams = new HashSet<>();
        for (DeviceActivity a : d.activities()) {
            if (!a.kind().isDeviceWork()) {
                continue;
            }
            assertNull("device work of launch " + a.flowId() + " recorded twice", work.put(a.flowId(), a));
            DeviceActivity launch = launches.get(a.flowId());
            assertNotNull(a.name() + " has no launch record", launch);
            assertEquals(launch.correlationId(), a.correlationId());
            assertEquals(launch.launchThreadId(), a.launchThreadId());
            assertEquals(launch.streamId(), a.streamId());
            streamsPerThread.computeIfAbsent(a.launchThreadId(), k -> new HashSet<>()).add(a.streamId());
            if (a.kind() == EventKind.KERNEL) {
                kernelStreams.add(a.streamId());
            }
        }
        assertEquals("every launch has its device work", launches.keySet(), work.keySet());
        assertEquals(launches.size(), work.size());
        for (DeviceActivity launch : launches.values()) {
            launchesPerInference.merge(launch.correlationId(), 1, Integer::sum);
        }
        assertEquals("every inference's launches are recorded under its id", THREADS * INFERENCES,
                launchesPerInference.size());
        for (int t = 0; t < THREADS; t++) {
            for (int i = 0; i < INFERENCES; i++) {
                assertNotNull(launchesPerInference.get(externalId(t, i)));
            }
        }
        Set<Integer> counts = new HashSet<>(launchesPerInference.values());
        assertEquals("every inference launches alike: " + counts, 1, counts.size());
        int perInference = counts.iterator().next();
        assertTrue("a copy in, three kernels and a copy out at least: " + perInference, perInference >= 5);
        assertEquals(THREADS * INFERENCES * perInference, launches.size());

        assertEquals("8 launching threads: " + streamsPerThread.keySet(), THREADS, streamsPerThread.size());
        Set<Long> streams = new HashSet<>();
        for (Set<Long> s : streamsPerThread.values()) {
            assertEquals("one stream per thread", 1, s.size());
            streams.addAll(s);
        }
        assertEquals("8 threads on 8 streams: " + streams, THREADS, streams.size());
        assertEquals(streams, kernelStreams);
        assertTrue("every inference commits its copy to the host: " + commits, commits >= THREADS * INFERENCES);
        assertTrue(Long.parseLong(d.metadata().get("command_buffers")) >= THREADS * INFERENCES);

        System.out.printf("mps stress: %d threads x %d inferences in %d ms; %d launches, %d commits%n", THREADS,
                INFERENCES, parallelMillis, launches.size(), commits);
    }
}
