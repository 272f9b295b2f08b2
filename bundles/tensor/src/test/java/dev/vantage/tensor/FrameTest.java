package dev.vantage.tensor;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;

import dev.vantage.profiler.dispatch.DispatchHook;
import dev.vantage.profiler.dispatch.DispatchThread;
import dev.vantage.profiler.dispatch.OpCall;

/** What a dispatch hook reads from an op's frame: inputs in order, the lazily named dispatch key, the thread. */
public class FrameTest {

    @Rule
    public final FakeRuntime runtime = new FakeRuntime();

    /** Everything a hook can read of a call, read at enter and again at exit. */
    record Read(String name, int count, List<String> types, List<List<Long>> shapes, DispatchThread thread) {
        static Read of(OpCall call) {
            List<String> types = new ArrayList<>();
            List<List<Long>> shapes = new ArrayList<>();
            for (int i = 0; i < call.inputCount(); i++) {
                types.add(call.inputType(i));
                List<Long> shape = new ArrayList<>();
                for (int d = 0; d < call.inputRank(i); d++) {
                    shape.add(call.inputDim(i, d));
                }
                shapes.add(shape);
            }
            return new Read(call.name(), call.inputCount(), types, shapes, call.thread());
        }
    }

    /** Keeps each op's read at enter and checks that exit reads the same frame, however deep the nesting. */
    private static final class Reader implements DispatchHook {
        final List<Read> entered = new ArrayList<>();
        final List<String> keys = new ArrayList<>();
        final List<Integer> deviceIndexes = new ArrayList<>();
        private final List<Read> open = new ArrayList<>();

        @Override
        public long onEnter(OpCall call) {
            Read r = Read.of(call);
            entered.add(r);
            open.add(r);
            keys.add(call.dispatchKey());
            deviceIndexes.add(call.deviceIndex());
            return entered.size() - 1;
        }

        @Override
        public void onExit(OpCall call, long handle) {
            Read atEnter = open.remove(open.size() - 1);
            assertEquals("the frame of " + atEnter.name() + " changed while it ran", atEnter, Read.of(call));
            assertSame(entered.get((int) handle), atEnter);
        }
    }

    private final Reader reader = new Reader();

    @Before
    public void listen() {
        runtime.listen(reader);
    }

    private Read first(String name) {
        return reader.entered.stream().filter(r -> r.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    public void scalarsFollowTheTensorsInTheOrderTorchShowsThem() {
        Tensor a = Tensor.ones(2, 3);
        Tensor b = Tensor.ones(3);
        a.add(b);
        Read add = first("aten::add");
        assertEquals(3, add.count());
        assertEquals(List.of("float", "float", "Scalar"), add.types());
        assertEquals(List.of(List.of(2L, 3L), List.of(3L), List.of()), add.shapes());

        reader.entered.clear();
        a.add(2.5);
        Read scalarAdd = first("aten::add");
        assertEquals(List.of("float", "Scalar", "Scalar"), scalarAdd.types());
    }

    @Test
    public void integerListsComeLastAndReadAsNoType() {
        Tensor t = Tensor.ones(2, 3);
        // the fake backend's kernel sums everything only; the hook read the frame before the kernel ran
        assertThrows(UnsupportedOperationException.class, () -> t.sum(new int[] {1}, false));
        Read sum = first("aten::sum");
        // torch shows sum.dim_IntList's dims and keepdim after the tensor, with no dtype
        assertEquals(List.of("float", "", ""), sum.types());
        assertEquals(List.of(List.of(2L, 3L), List.of(), List.of()), sum.shapes());
    }

    @Test
    public void readingPastTheInputsNamesTheOpAndItsInputCount() {
        AtomicReference<String> message = new AtomicReference<>();
        runtime.listen(new DispatchHook() {
            @Override
            public long onEnter(OpCall call) {
                if (call.name().equals("aten::add")) {
                    message.set(assertThrows(IndexOutOfBoundsException.class,
                            () -> call.inputType(call.inputCount())).getMessage());
                    assertThrows(IndexOutOfBoundsException.class, () -> call.inputRank(-1));
                    assertThrows(IndexOutOfBoundsException.class, () -> call.inputDim(2, 0));
                }
                return 0;
            }

            @Override
            public void onExit(OpCall call, long handle) {
            }
        });
        Tensor.ones(2).add(Tensor.ones(2));
        assertEquals("aten::add has 3 inputs, not 4", message.get());
    }

    @Test
    public void theDispatchKeyAndDeviceComeFromTheFirstTensor() {
        Device npu0 = new Device("npu", 0);
        Tensor a = Tensor.ones(3).to(npu0);
        reader.keys.clear();
        reader.deviceIndexes.clear();
        reader.entered.clear();
        a.add(a);
        int add = reader.entered.indexOf(first("aten::add"));
        assertEquals("NPU", reader.keys.get(add));
        assertEquals(0, (int) reader.deviceIndexes.get(add));

        Tensor c = Tensor.ones(3);
        reader.entered.clear();
        reader.keys.clear();
        reader.deviceIndexes.clear();
        c.add(c);
        add = reader.entered.indexOf(first("aten::add"));
        assertEquals("CPU", reader.keys.get(add));
        assertEquals(-1, (int) reader.deviceIndexes.get(add));
    }

    @Test
    public void nestedOpsKeepTheirOwnFrames() {
        // matmul dispatches mm inside it: the outer frame must read the same at its exit as at its enter
        Tensor a = Tensor.ones(2, 3);
        Tensor b = Tensor.ones(3, 4);
        a.matmul(b);
        Read matmul = first("aten::matmul");
        Read mm = first("aten::mm");
        assertEquals(List.of(List.of(2L, 3L), List.of(3L, 4L)), matmul.shapes());
        assertEquals(List.of(List.of(2L, 3L), List.of(3L, 4L)), mm.shapes());
    }

    @Test
    public void theCallCarriesItsThreadsState() throws InterruptedException {
        Tensor.ones(2).add(Tensor.ones(2));
        DispatchThread here = first("aten::add").thread();
        assertSame(DispatchThread.current(), here);
        assertSame(Thread.currentThread(), here.thread());

        List<DispatchThread> seen = new ArrayList<>();
        Thread other = new Thread(() -> {
            Tensor.ones(2).mul(Tensor.ones(2));
            seen.add(DispatchThread.current());
        });
        other.start();
        other.join();
        DispatchThread there = first("aten::mul").thread();
        assertNotSame(here, there);
        assertSame(seen.get(0), there);
        assertSame(other, there.thread());
        assertArrayEquals(new long[] {2}, Tensor.ones(2).shape());
        assertTrue(reader.entered.size() >= 2);
    }
}
