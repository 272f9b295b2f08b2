package dev.vantage.tensor;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.After;
import org.junit.Test;

import dev.vantage.profiler.dispatch.Dispatch;
import dev.vantage.profiler.dispatch.DispatchHook;
import dev.vantage.profiler.dispatch.DispatchThread;
import dev.vantage.profiler.dispatch.OpCall;
import dev.vantage.tensor.internal.Dispatcher;
import dev.vantage.tensor.spi.Backend;
import dev.vantage.tensor.spi.KernelRegistry;
import dev.vantage.tensor.spi.Storage;

/** What every op does the same way, through the one template: its backend, its thread's state, its frame. */
public class OpTemplateTest {

    /** A backend that notes every question the runtime asks it once installed. */
    private static final class Watched implements Backend {
        final FakeBackend inner = new FakeBackend("cpu", DispatchKey.CPU);
        final List<String> asked = new ArrayList<>();

        @Override
        public String deviceType() {
            asked.add("deviceType");
            return inner.deviceType();
        }

        @Override
        public DispatchKey dispatchKey() {
            asked.add("dispatchKey");
            return inner.dispatchKey();
        }

        @Override
        public int deviceCount() {
            asked.add("deviceCount");
            return 1;
        }

        @Override
        public boolean emulated() {
            return true;
        }

        @Override
        public Storage allocate(Device device, DType dtype, int size) {
            asked.add("allocate");
            return inner.allocate(device, dtype, size);
        }

        @Override
        public void registerKernels(KernelRegistry registry) {
            inner.registerKernels(registry);
        }
    }

    private final Watched cpu = new Watched();
    private Object token;

    @After
    public void uninstall() {
        if (token != null) {
            Dispatch.release(token);
        }
        Dispatcher.uninstallAll();
    }

    @Test
    public void anOpFindsItsBackendOnceAndAsksItOnlyForTheOutputsMemory() {
        Dispatcher.install(cpu, "test", "0");
        Tensor a = Tensor.of(new float[] {1, 2}, 2);
        Tensor b = Tensor.of(new float[] {3, 4}, 2);
        cpu.asked.clear();
        Tensor c = a.add(b);
        // looking the backend up is the runtime's own table, read once: no question per lookup to the backend
        assertEquals(List.of("allocate"), cpu.asked);
        assertArrayEquals(new float[] {4, 6}, c.toFloatArray(), 0f);
        // an op that names its device checks that the device exists, once
        cpu.asked.clear();
        Tensor.zeros(Device.CPU, DType.FLOAT32, 2);
        assertEquals(List.of("deviceCount", "allocate"), cpu.asked);
    }

    @Test
    public void theRuntimeKeepsItsPerThreadStateInOneSlotAndNoThreadLocalOfItsOwn() throws Exception {
        List<String> threadLocals = new ArrayList<>();
        for (Class<?> type : runtimeClasses()) {
            for (Field f : type.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers()) && ThreadLocal.class.isAssignableFrom(f.getType())) {
                    threadLocals.add(type.getName() + "." + f.getName());
                }
            }
        }
        assertEquals("the grad mode, sequence numbers, scopes and frames live in the thread's OpThread",
                List.of(), threadLocals);
    }

    @Test
    public void aRecordedOpWithAGradientInAScopeShowsHooksTheThreadItsStateIsIn() throws InterruptedException {
        Dispatcher.install(cpu, "test", "0");
        List<DispatchThread> seen = new ArrayList<>();
        List<Long> sequence = new ArrayList<>();
        token = Dispatch.claim((h, e) -> {
            throw new AssertionError(e);
        });
        Dispatch.publish(token, new DispatchHook[] {new DispatchHook() {
            @Override
            public long onEnter(OpCall call) {
                seen.add(call.thread());
                sequence.add(call.sequenceNumber());
                return 0;
            }

            @Override
            public void onExit(OpCall call, long handle) {
            }
        }});
        Thread worker = new Thread(() -> {
            Tensor w = Tensor.of(new float[] {1, 2}, 2).requiresGrad(true);
            try (TensorScope scope = TensorScope.open()) {
                Tensor y = w.mul(w);
                Tensor z = y.mul(w);
                assertTrue(z.requiresGrad());
                assertSame(scope, z.scope);
            }
        });
        worker.start();
        worker.join();
        assertEquals(2, seen.size());
        assertSame(worker, seen.get(0).thread());
        assertSame(seen.get(0), seen.get(1));
        // one counter per thread, read through the same state as everything else
        assertEquals(List.of(0L, 1L), sequence);
    }

    /** Every class of the runtime's bundle, read from where this test's build put them. */
    private static List<Class<?>> runtimeClasses() throws IOException, URISyntaxException, ClassNotFoundException {
        Path root = Path.of(Tensor.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<Class<?>> classes = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path p : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".class"))::iterator) {
                String name = root.relativize(p).toString().replace('/', '.').replaceAll("\\.class$", "");
                if (name.startsWith("dev.vantage.tensor.")) {
                    classes.add(Class.forName(name, false, Tensor.class.getClassLoader()));
                }
            }
        }
        assertTrue("classes found under " + root + ": " + classes.size(), classes.size() > 20);
        return classes;
    }
}
