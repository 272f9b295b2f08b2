package dev.vantage.profiler.core.internal;

import static org.junit.Assert.assertEquals;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import dev.vantage.ondemand.internal.OnDemandComponent;
import dev.vantage.profiler.api.CaptureRequest;
import dev.vantage.profiler.api.MemoryAdmin;
import dev.vantage.profiler.spi.RunRegistry;
import dev.vantage.profiler.spi.TraceExporter;
import dev.vantage.profiler.trace.Trace;

/**
 * The on-demand bundle's component over the core (a test here, as the on-demand bundle's tests cannot reach the
 * core's test jar: the core's tests depend on that bundle). A platform that stops (its process exits) while a
 * capture whose time was up is being written lets the write finish: the agent stops its platform from a JVM
 * shutdown hook, and the capture's files must not be lost.
 */
public class OnDemandDeactivationTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Test
    public void deactivationWaitsForTheCaptureTheTimerIsWriting() throws Exception {
        CountDownLatch writing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        TraceExporter slow = new TraceExporter() {
            @Override
            public String format() {
                return "chrome";
            }

            @Override
            public Path defaultTarget(Path directory, String baseName) {
                return directory.resolve(baseName + ".trace.json");
            }

            @Override
            public void export(Trace trace, Path target) throws IOException {
                writing.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    order.add("write interrupted");
                    throw new IOException("interrupted", e);
                }
                Files.writeString(target, "{}");
                order.add("written");
            }
        };
        RunRegistry registry = (dir, run) -> dir.resolve("runs.jsonl");
        MemoryAdmin memory = (MemoryAdmin) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {MemoryAdmin.class}, (p, m, a) -> m.getName().equals("devices") ? List.of() : 0L);
        Path dir = tmp.newFolder("traces").toPath();
        StandaloneProfiler core = new StandaloneProfiler(1_000_000);
        core.addExporter(slow);
        try {
            OnDemandComponent onDemand = new OnDemandComponent(core.profiler(), registry, memory);
            onDemand.activate();
            onDemand.start(new CaptureRequest(1, 0, 0, Set.of(), List.of(), dir, "short", "attach", "a test"));
            writing.await();
            Thread stopping = new Thread(() -> {
                onDemand.deactivate();
                order.add("deactivated");
            });
            stopping.start();
            // deactivation waits for the write (a deactivation that did not would have ended by now)
            while (stopping.getState() != Thread.State.TIMED_WAITING && stopping.isAlive()) {
                Thread.onSpinWait();
            }
            release.countDown();
            stopping.join();
        } finally {
            core.close();
        }
        assertEquals(List.of("written", "deactivated"), order);
        assertEquals("{}", Files.readString(dir.resolve("short.trace.json")));
    }
}
