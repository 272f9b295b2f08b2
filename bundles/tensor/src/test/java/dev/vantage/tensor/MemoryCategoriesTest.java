package dev.vantage.tensor;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;

import dev.vantage.profiler.dispatch.DispatchThread;
import dev.vantage.profiler.memory.MemoryCategory;
import dev.vantage.profiler.memory.MemoryEvents;
import dev.vantage.profiler.memory.MemoryScope;
import dev.vantage.profiler.memory.MemorySink;
import dev.vantage.profiler.memory.MemoryThread;
import dev.vantage.tensor.internal.Dispatcher;
import dev.vantage.tensor.nn.Module;
import dev.vantage.tensor.optim.SGD;

/** The runtime tells a memory profile what its allocations hold: parameters, inputs, activations, gradients, ... */
public class MemoryCategoriesTest {

    private final FakeBackend cpu = new FakeBackend("cpu", DispatchKey.CPU);
    private final FakeBackend npu = new FakeBackend("npu", DispatchKey.NPU);
    private final Sink sink = new Sink();
    private Object token;

    /** One allocation as the sink saw it, with the allocating thread's category. */
    record Allocation(String device, long address, long bytes, MemoryCategory category) {
    }

    /** Records the allocations (not the frees) with the allocating thread's category, as a profiler core does. */
    static final class Sink implements MemorySink {
        final List<Allocation> allocations = new ArrayList<>();
        final List<Object[]> recategorized = new ArrayList<>();

        @Override
        public synchronized void allocated(String deviceType, int deviceIndex, long address, long bytes,
                long totalAllocated, long totalReserved) {
            DispatchThread thread = DispatchThread.current();
            if (bytes < 0) {
                return;
            }
            allocations.add(new Allocation(deviceType, address, bytes, MemoryThread.category(thread)));
        }

        @Override
        public void outOfMemory(String deviceType, int deviceIndex, long bytes, long totalAllocated,
                long totalReserved) {
        }

        @Override
        public synchronized void categorized(String deviceType, int deviceIndex, long address,
                MemoryCategory category) {
            recategorized.add(new Object[] {deviceType, address, category});
        }

        synchronized List<Allocation> since(int from) {
            return List.copyOf(allocations.subList(from, allocations.size()));
        }
    }

    /** One linear layer without bias: {@code x @ w.T}. */
    static final class Layer extends Module {
        Layer() {
            register("weight", Tensor.of(new float[] {1, 2, 3, 4, 5, 6, 7, 8}, 2, 4));
        }

        @Override
        public Tensor forward(Tensor x) {
            return x.mm(param("weight").t());
        }
    }

    @Before
    public void install() {
        Dispatcher.install(cpu, "test", "0");
        Dispatcher.install(npu, "test", "0");
        token = MemoryEvents.claim();
    }

    @After
    public void uninstall() {
        MemoryEvents.release(token);
        Dispatcher.uninstallAll();
    }

    private static Set<MemoryCategory> categories(List<Allocation> list, String device) {
        return list.stream().filter(a -> a.device().equals(device)).map(Allocation::category)
                .collect(Collectors.toSet());
    }

    @Test
    public void aTrainingStepAttributesParametersInputsActivationsGradientsAndOptimizerState() {
        Layer model = new Layer();
        MemoryEvents.publish(token, sink);
        Device device = new Device("npu", 0);

        model.to(device);
        List<Allocation> moved = sink.since(0);
        assertFalse(moved.isEmpty());
        assertEquals(Set.of(MemoryCategory.PARAMETER), categories(moved, "npu"));

        int mark = sink.allocations.size();
        Tensor x;
        try (MemoryScope scope = MemoryScope.enter(MemoryCategory.INPUT)) {
            x = Tensor.of(new float[] {1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3}, 3, 4).to(device);
        }
        assertEquals(Set.of(MemoryCategory.INPUT), categories(sink.since(mark), "npu"));

        mark = sink.allocations.size();
        Tensor out = model.forward(x);
        assertEquals(Set.of(MemoryCategory.ACTIVATION), categories(sink.since(mark), "npu"));
        Tensor loss = out.sum();

        mark = sink.allocations.size();
        loss.backward();
        List<Allocation> backward = sink.since(mark);
        // what the backward pass allocates is autograd's (the seed gradient of ones is a temporary of the caller's)
        assertEquals(Set.of(MemoryCategory.AUTOGRAD_DETAIL, MemoryCategory.TEMPORARY), categories(backward, "npu"));
        assertEquals(1, backward.stream().filter(a -> a.device().equals("npu")
                && a.category() == MemoryCategory.TEMPORARY).count());
        // the weight's gradient was allocated by the backward matmul, and then re-categorised as a gradient
        assertEquals(1, sink.recategorized.size());
        Object[] retag = sink.recategorized.get(0);
        assertEquals("npu", retag[0]);
        assertEquals(MemoryCategory.GRADIENT, retag[2]);
        long gradientBytes = model.parameters().get(0).grad().numel() * 4L;
        assertTrue(backward.stream().anyMatch(a -> a.address() == (long) retag[1] && a.bytes() == gradientBytes));

        mark = sink.allocations.size();
        new SGD(model.parameters(), 0.1, 0.9, 0).step();
        List<Allocation> step = sink.since(mark);
        assertTrue(step.toString(), step.stream().anyMatch(a -> a.device().equals("npu")
                && a.category() == MemoryCategory.OPTIMIZER_STATE && a.bytes() == gradientBytes));
        assertTrue(step.stream().allMatch(a -> a.category() == MemoryCategory.OPTIMIZER_STATE
                || a.category() == MemoryCategory.TEMPORARY));
        // every scope closed: the thread's category is unknown again
        assertEquals(MemoryCategory.UNKNOWN, MemoryScope.current());
    }

    @Test
    public void scopesDoNothingWhenNoProfileRecordsMemory() {
        try (MemoryScope scope = MemoryScope.enter(MemoryCategory.INPUT)) {
            assertEquals(MemoryCategory.UNKNOWN, MemoryScope.current());
            Tensor.zeros(new Device("npu", 0), DType.FLOAT32, 4);
        }
        assertTrue(sink.allocations.isEmpty());
    }
}
