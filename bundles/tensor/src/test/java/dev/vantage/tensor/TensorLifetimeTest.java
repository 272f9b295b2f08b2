package dev.vantage.tensor;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;

import dev.vantage.profiler.dispatch.Dispatch;
import dev.vantage.profiler.dispatch.DispatchHook;
import dev.vantage.profiler.memory.MemoryEvents;
import dev.vantage.profiler.memory.MemorySink;
import dev.vantage.tensor.internal.Dispatcher;
import dev.vantage.tensor.spi.Storage;

/**
 * Deterministic tensor lifetimes: storages count their users, scopes close what they made, autograd lets go of what
 * it saved once backward used it, ops free their own temporaries, and the collector frees only what nobody closed.
 * Memory is read from the fake backend's allocator, which counts every allocation and free.
 */
public class TensorLifetimeTest {

    private final FakeBackend cpu = new FakeBackend("cpu", DispatchKey.CPU);
    private final FakeBackend npu = new FakeBackend("npu", DispatchKey.NPU);

    @Before
    public void install() {
        Dispatcher.install(cpu, "test", "0");
        Dispatcher.install(npu, "test", "0");
    }

    @After
    public void uninstall() {
        Dispatcher.uninstallAll();
    }

    private static Tensor host(float... values) {
        Tensor t = Tensor.zeros(Device.CPU, DType.FLOAT32, values.length);
        System.arraycopy(values, 0, t.storage().floats(), 0, values.length);
        return t;
    }

    @Test
    public void aStorageIsFreedWhenItsLastViewCloses() {
        Tensor t = Tensor.zeros(Device.CPU, DType.FLOAT32, 4);
        Tensor v = t.view(2, 2);
        assertEquals(2, t.storage().users());
        t.close();
        assertEquals("the view still uses the memory", 16, cpu.liveBytes());
        assertEquals(0f, v.toFloatArray()[3], 0f);
        v.close();
        assertEquals(0, cpu.liveBytes());
        assertTrue(t.storage().isFreed());
        t.close();   // a second close does nothing
        assertEquals(0, cpu.liveBytes());
    }

    @Test
    public void aClosedTensorCannotBeUsed() {
        Tensor t = host(1, 2);
        t.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> t.add(t));
        assertTrue(e.getMessage(), e.getMessage().contains("aten::add") && e.getMessage().contains("was closed"));
        assertThrows(IllegalStateException.class, t::item);
        assertThrows(IllegalStateException.class, () -> t.view(2));
    }

    @Test
    public void aScopeClosesWhatItMadeAndHandsOnWhatItKeeps() {
        Tensor kept;
        Tensor escaped;
        Tensor inner;
        try (TensorScope outer = TensorScope.open()) {
            try (TensorScope scope = TensorScope.open()) {
                Tensor a = host(1, 2, 3, 4);
                Tensor b = a.add(a);
                kept = scope.keep(b.mul(b));
                escaped = TensorScope.escape(b.add(b));
                assertEquals(4 * 16, cpu.liveBytes());
            }
            assertEquals("a and b are freed", 2 * 16, cpu.liveBytes());
            assertFalse(kept.isClosed());
            assertEquals(64f, kept.toFloatArray()[3], 0f);
            inner = host(5);
        }
        assertTrue("the enclosing scope closes what was kept into it", kept.isClosed());
        assertTrue(inner.isClosed());
        assertFalse("an escaped tensor belongs to no scope", escaped.isClosed());
        assertEquals(16, cpu.liveBytes());
        escaped.close();
        assertEquals(0, cpu.liveBytes());
    }

    @Test
    public void scopesCloseInReverseOrderOnTheirThread() {
        TensorScope outer = TensorScope.open();
        TensorScope inner = TensorScope.open();
        assertThrows(IllegalStateException.class, outer::close);
        inner.close();
        outer.close();
    }

    @Test
    public void backwardLetsGoOfSavedTensorsAsItUsesThem() {
        Tensor w = host(1, 2, 3, 4).requiresGrad(true);
        long weight = cpu.liveBytes();
        try (TensorScope step = TensorScope.open()) {
            Tensor x = host(5, 6, 7, 8);
            Tensor y = x.mul(w);          // saves x and w
            Tensor z = y.mul(y);          // saves y twice
            x.close();
            y.close();
            // the forward pass's tensors are closed, but autograd still holds what it saved
            assertEquals(weight + 3 * 16, cpu.liveBytes());
            Tensor loss = z.sum();
            loss.backward();
            // what remains of the step: z, the loss, and w's gradient
            assertEquals(weight + 16 + 4 + 16, cpu.liveBytes());
            assertNotNull(w.grad());
        }
        assertEquals("the leaf owns its gradient", weight + 16, cpu.liveBytes());
        assertEquals(2 * 5 * 5 * 1f, w.grad().toFloatArray()[0], 0f);   // d(x w)^2/dw = 2 x^2 w
        w.setGrad(null);   // zero_grad
        assertEquals(weight, cpu.liveBytes());
        w.close();
        assertEquals(0, cpu.liveBytes());
    }

    @Test
    public void aGraphNoOneRunsBackwardThroughIsFreedWithItsOutput() {
        Tensor w = host(1, 2).requiresGrad(true);
        Tensor x = host(3, 4);
        Tensor xw = x.mul(w);         // saves x
        Tensor y = xw.mul(x);         // saves x again
        xw.close();
        x.close();
        assertEquals("w, x (saved) and y", 3 * 8, cpu.liveBytes());
        y.close();
        assertEquals("every saved tensor is let go of", 8, cpu.liveBytes());
        w.close();
    }

    @Test
    public void retainingTheGraphKeepsWhatItSavedUntilItsOutputCloses() {
        Tensor w = host(1, 2).requiresGrad(true);
        Tensor x = host(3, 4);
        Tensor xw = x.mul(w);
        Tensor loss = xw.sum();
        xw.close();
        x.close();
        loss.backward(Tensor.full(1f), true);
        loss.backward(Tensor.full(1f), true);
        assertEquals(2 * 3f, w.grad().toFloatArray()[0], 0f);
        assertEquals("w, x saved, the loss, w's gradient, and the two seeds the caller made", 8 + 8 + 4 + 8 + 2 * 4,
                cpu.liveBytes());
        loss.close();
        assertEquals(8 + 8 + 2 * 4, cpu.liveBytes());
        w.close();
    }

    @Test
    public void anOpThatFallsBackToTheHostFreesItsCopies() {
        Device npu0 = new Device("npu", 0);
        Tensor onHost = host(1, 2, 3);
        Tensor a = onHost.to(npu0);
        onHost.close();
        Tensor b = a.add(a);   // no npu kernel: host copies in and out
        assertEquals("the op's host copies are gone when it returns", 0, cpu.liveBytes());
        assertEquals(2 * 12, npu.liveBytes());
        assertEquals(4f, b.toFloatArray()[1], 0f);
        assertEquals(0, cpu.liveBytes());
        a.close();
        b.close();
        assertEquals(0, npu.liveBytes());
    }

    @Test
    public void theCollectorFreesWhatNobodyClosedAndNamesIt() throws InterruptedException {
        // the collector may free other tests' forgotten storages meanwhile: only this storage's address counts
        AtomicLong watched = new AtomicLong(Storage.NO_ADDRESS);
        List<String> collected = new CopyOnWriteArrayList<>();
        List<Long> freedAddresses = new CopyOnWriteArrayList<>();
        CountDownLatch freed = new CountDownLatch(1);
        MemorySink sink = new MemorySink() {
            @Override
            public void allocated(String deviceType, int deviceIndex, long address, long bytes, long totalAllocated,
                    long totalReserved) {
                if (bytes < 0 && address == watched.get()) {
                    freedAddresses.add(address);
                    freed.countDown();
                }
            }

            @Override
            public void outOfMemory(String deviceType, int deviceIndex, long bytes, long totalAllocated,
                    long totalReserved) {
            }

            @Override
            public void collected(String deviceType, int deviceIndex, long address, String allocatedBy) {
                if (address == watched.get()) {
                    collected.add(deviceType + " " + allocatedBy + " @" + address);
                }
            }
        };
        Object memory = MemoryEvents.claim();
        Object dispatch = Dispatch.claim((h, e) -> {
            throw new AssertionError(e);
        });
        long before = Storage.lateFrees();
        long beforeBytes = Storage.lateFreeBytes();
        Storage forgotten;
        try {
            MemoryEvents.publish(memory, sink);
            Dispatch.publish(dispatch, new DispatchHook[] {new RecordingHook()});
            forgotten = Tensor.zeros(Device.CPU, DType.FLOAT32, 4096).storage();
            watched.set(forgotten.address());
            assertEquals(16384, cpu.liveBytes());
            // what the collector does once nothing reaches the storage; the free then runs on the collector thread
            assertTrue("the storage is registered for the collector", Storage.collectAsUnreachable(forgotten));
            assertTrue("the late free ran", freed.await(30, TimeUnit.SECONDS));
        } finally {
            Dispatch.release(dispatch);
            MemoryEvents.release(memory);
        }
        assertEquals(List.of("cpu aten::zeros @" + forgotten.address()), collected);
        assertEquals(List.of(forgotten.address()), freedAddresses);
        assertEquals(0, cpu.liveBytes());
        assertEquals(List.of(forgotten.address()), cpu.frees);
        assertTrue("counted as a late free", Storage.lateFrees() >= before + 1);
        assertTrue("with its bytes", Storage.lateFreeBytes() >= beforeBytes + 16384);
        assertFalse("once freed, a storage is not the collector's any more", Storage.collectAsUnreachable(forgotten));
    }

    @Test
    public void aReleasedStorageIsNotFreedAgainByTheCollector() {
        Tensor t = Tensor.zeros(Device.CPU, DType.FLOAT32, 8);
        Storage s = t.storage();
        t.close();
        assertEquals(0, cpu.liveBytes());
        assertFalse("a released storage leaves the collector's list", Storage.collectAsUnreachable(s));
        assertEquals("freed once, by the release", List.of(s.address()), cpu.frees);
    }

    /**
     * Registrations are kept in one list per group of allocating threads: a storage made on one thread and released
     * on another leaves its own list, and the collector still finds every storage nobody released, whichever thread
     * made it.
     */
    @Test
    public void storagesMadeOnManyThreadsLeaveTheCollectorsListsWhereverTheyAreReleased() throws Exception {
        int threads = 2 * 64 + 3;   // more threads than lists, so that lists are shared and most are used
        Storage[] made = new Storage[threads];
        for (int i = 0; i < threads; i++) {
            int k = i;
            Thread t = new Thread(() -> made[k] = Tensor.zeros(Device.CPU, DType.FLOAT32, 2).storage());
            t.start();
            t.join();
        }
        for (int i = 0; i < threads; i += 2) {
            made[i].release();   // on this thread, not the one that made it
        }
        for (int i = 0; i < threads; i++) {
            if (i % 2 == 0) {
                assertFalse("storage " + i + " was released", Storage.collectAsUnreachable(made[i]));
            } else {
                assertTrue("storage " + i + " is the collector's", Storage.collectAsUnreachable(made[i]));
            }
        }
    }

    @Test
    public void aClosedStorageRefusesNewUsers() {
        Tensor t = host(1);
        t.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> t.storage().retain());
        assertTrue(e.getMessage(), e.getMessage().contains("was freed"));
    }
}
