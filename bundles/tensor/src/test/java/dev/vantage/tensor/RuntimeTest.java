package dev.vantage.tensor;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.List;

import org.junit.Rule;
import org.junit.Test;

import dev.vantage.tensor.internal.Dispatcher;

/** The runtime's own behaviour, over a naive fake backend: views, checks, autograd records, hooks, fallback. */
public class RuntimeTest {

    @Rule
    public final FakeRuntime runtime = new FakeRuntime();
    private final FakeBackend cpu = runtime.cpu;
    private final FakeBackend npu = runtime.npu;
    private final RecordingHook hook = new RecordingHook();

    private void listen() {
        runtime.listen(hook);
    }

    @Test
    public void viewsShareStorageAndReadThroughStrides() {
        Tensor a = Tensor.of(new float[] {1, 2, 3, 4, 5, 6}, 2, 3);
        Tensor t = a.t();
        assertSame(a.storage(), t.storage());
        assertArrayEquals(new long[] {3, 2}, t.shape());
        assertArrayEquals(new int[] {1, 3}, t.strides());
        assertFalse(t.isContiguous());
        assertArrayEquals(new float[] {1, 4, 2, 5, 3, 6}, t.toFloatArray(), 0f);
        Tensor s = a.slice(1, 1, 3);
        assertEquals(1, s.storageOffset());
        assertArrayEquals(new float[] {2, 3, 5, 6}, s.toFloatArray(), 0f);
        assertArrayEquals(new float[] {4, 5, 6}, a.slice(0, -1, 2).flatten(0).toFloatArray(), 0f);
        assertArrayEquals(new long[] {2, 1, 3}, a.unsqueeze(1).shape());
        assertArrayEquals(new long[] {2, 3}, a.unsqueeze(1).squeeze(1).shape());
        assertArrayEquals(new float[] {1, 2, 3, 1, 2, 3}, Tensor.of(new float[] {1, 2, 3}, 3).expand(2, 3)
                .toFloatArray(), 0f);
        assertArrayEquals(new float[] {1, 4, 2, 5, 3, 6}, a.permute(1, 0).reshape(6).toFloatArray(), 0f);
    }

    @Test
    public void viewOfANonContiguousTensorIsRefusedButReshapeCopies() {
        Tensor t = Tensor.of(new float[] {1, 2, 3, 4, 5, 6}, 2, 3).t();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> t.view(6));
        assertTrue(e.getMessage(), e.getMessage().startsWith("aten::view:") && e.getMessage().contains("reshape"));
        Tensor r = t.reshape(-1);
        assertTrue(r.isContiguous());
        assertArrayEquals(new float[] {1, 4, 2, 5, 3, 6}, r.toFloatArray(), 0f);
    }

    @Test
    public void badInputNamesTheOpShapesAndDevices() {
        Tensor a = Tensor.zeros(2, 3);
        Tensor b = Tensor.zeros(4);
        String m = assertThrows(IllegalArgumentException.class, () -> a.add(b)).getMessage();
        assertTrue(m, m.contains("aten::add") && m.contains("[2, 3]") && m.contains("[4]") && m.contains("cpu:0"));
        Tensor onNpu = Tensor.zeros(3, 2).to(new Device("npu", 0));
        m = assertThrows(IllegalArgumentException.class, () -> a.mm(onNpu)).getMessage();
        assertTrue(m, m.contains("aten::mm") && m.contains("cpu:0") && m.contains("npu:0") && m.contains("[3, 2]"));
        m = assertThrows(IllegalArgumentException.class, () -> a.mm(Tensor.zeros(2, 3))).getMessage();
        assertTrue(m, m.contains("aten::mm") && m.contains("[2, 3] float on cpu:0 and [2, 3] float"));
        m = assertThrows(IllegalArgumentException.class, () -> Tensor.arange(3).add(Tensor.arange(3)))
                .getMessage();
        assertTrue(m, m.contains("aten::add") && m.contains("long"));
        m = assertThrows(IllegalArgumentException.class, () -> a.to(new Device("mps", 0))).getMessage();
        assertTrue(m, m.contains("no backend for device mps:0") && m.contains("[cpu, npu]"));
    }

    @Test
    public void backwardOnANonScalarWithoutAGradientNamesTheOpAndShape() {
        Tensor w = Tensor.ones(2, 2).requiresGrad(true);
        Tensor y = w.mm(Tensor.ones(2, 3));
        String m = assertThrows(IllegalStateException.class, y::backward).getMessage();
        assertTrue(m, m.contains("[2, 3]") && m.contains("MmBackward0") && m.contains("cpu:0"));
    }

    @Test
    public void recordsGraphOnlyWhenAnInputRequiresGradAndGradModeIsOn() {
        Tensor w = Tensor.ones(2, 2).requiresGrad(true);
        Tensor x = Tensor.ones(2, 2);
        assertEquals("MmBackward0", x.mm(w).gradFnName());
        assertNull(x.mm(x).gradFnName());
        try (GradMode.Scope off = GradMode.disabled()) {
            assertNull(x.mm(w).gradFnName());
            assertFalse(x.mm(w).requiresGrad());
        }
        assertTrue(GradMode.isEnabled());
    }

    @Test
    public void gradientsFlowThroughViewsAndAccumulateAcrossBackwards() {
        Tensor w = Tensor.of(new float[] {1, 2, 3, 4}, 2, 2).requiresGrad(true);
        Tensor x = Tensor.of(new float[] {1, 1, 1, 1, 1, 1}, 3, 2);
        // loss = sum(x @ w.T) : d/dw[i][j] = sum over rows of x[:, j] = 3
        x.mm(w.t()).sum().backward();
        assertArrayEquals(new float[] {3, 3, 3, 3}, w.grad().toFloatArray(), 1e-6f);
        x.mm(w.t()).sum().backward();
        assertArrayEquals(new float[] {6, 6, 6, 6}, w.grad().toFloatArray(), 1e-6f);
    }

    @Test
    public void aSecondBackwardThroughAFreedGraphFailsClearly() {
        Tensor w = Tensor.ones(2, 2).requiresGrad(true);
        Tensor loss = w.mul(w).sum();
        loss.backward();
        String m = assertThrows(IllegalStateException.class, loss::backward).getMessage();
        assertTrue(m, m.contains("second time"));
    }

    @Test
    public void inPlaceChangesToSavedTensorsAreCaughtAtBackward() {
        Tensor w = Tensor.ones(2, 2).requiresGrad(true);
        Tensor x = Tensor.ones(2, 2);
        Tensor loss = w.mul(x).sum();
        x.mul_(2.0);
        String m = assertThrows(IllegalStateException.class, loss::backward).getMessage();
        assertTrue(m, m.contains("MulBackward0") && m.contains("modified by an in-place op"));
    }

    @Test
    public void inPlaceOnATensorThatRequiresGradIsRefusedWhileRecording() {
        Tensor w = Tensor.ones(2).requiresGrad(true);
        String m = assertThrows(IllegalStateException.class, () -> w.add_(1.0)).getMessage();
        assertTrue(m, m.contains("aten::add_") && m.contains("requires a gradient"));
        try (GradMode.Scope off = GradMode.disabled()) {
            w.add_(1.0);
        }
        assertArrayEquals(new float[] {2, 2}, w.toFloatArray(), 0f);
    }

    @Test
    public void hooksSeeForwardAndBackwardOpsLinkedBySequenceNumbers() {
        Tensor w = Tensor.ones(2, 2).requiresGrad(true);
        Tensor x = Tensor.ones(3, 2);
        listen();
        Tensor loss = x.mm(w).sum();
        loss.backward();
        List<RecordingHook.Seen> seen = hook.seen;
        RecordingHook.Seen mm = seen.stream().filter(s -> s.name().equals("aten::mm")).findFirst().orElseThrow();
        assertTrue(mm.seq() >= 0);
        assertEquals(-1, mm.fwdThread());
        assertEquals("CPU", mm.key());
        assertEquals(List.of("float", "float"), mm.types());
        long thread = Thread.currentThread().getId();
        RecordingHook.Seen eval = seen.stream()
                .filter(s -> s.name().equals("autograd::engine::evaluate_function: MmBackward0")).findFirst()
                .orElseThrow();
        assertEquals(mm.seq(), eval.seq());
        assertEquals(thread, eval.fwdThread());
        int at = seen.indexOf(eval);
        assertEquals("MmBackward0", seen.get(at + 1).name());
        assertEquals(eval.depth() + 1, seen.get(at + 1).depth());
        assertEquals(mm.seq(), seen.get(at + 1).seq());
        // the backward's own matrix product runs inside it, with no sequence number of its own
        assertTrue(seen.subList(at + 2, seen.size()).stream()
                .anyMatch(s -> s.name().equals("aten::mm") && s.depth() > eval.depth() + 1 && s.seq() == -1));
        assertTrue(hook.names().contains("autograd::engine::evaluate_function: torch::autograd::AccumulateGrad"));
    }

    @Test
    public void anOpTheDeviceLacksRunsOnTheCpuWithVisibleCopies() {
        Device npuDevice = new Device("npu", 0);
        Tensor a = Tensor.of(new float[] {1, 2, 3}, 3).to(npuDevice);
        Tensor b = Tensor.of(new float[] {10, 20, 30}, 3).to(npuDevice);
        npu.ran.clear();
        cpu.ran.clear();
        listen();
        Tensor c = a.add(b);
        assertEquals(npuDevice, c.device());
        assertArrayEquals(new float[] {11, 22, 33}, c.toFloatArray(), 0f);
        assertTrue(cpu.ran.contains("aten::add"));
        assertTrue(npu.ran.contains("aten::copy_"));
        List<String> names = hook.names();
        int add = names.indexOf("aten::add");
        assertEquals(List.of("aten::add", "aten::to", "aten::_to_copy", "aten::copy_"), names.subList(add,
                add + 4));
        assertTrue(names.subList(add, names.size()).stream().filter(n -> n.equals("aten::copy_")).count() >= 3);
        RecordingHook.Seen first = hook.seen.get(add);
        assertEquals("NPU", first.key());
    }

    @Test
    public void gradientsFlowBackAcrossDevices() {
        Device npuDevice = new Device("npu", 0);
        Tensor x = Tensor.of(new float[] {1, 2, 3, 4}, 2, 2).requiresGrad(true);
        Tensor w = Tensor.of(new float[] {1, 0, 0, 2}, 2, 2);
        Tensor y = x.to(npuDevice).mm(w.to(npuDevice));
        assertEquals("MmBackward0", y.gradFnName());
        Tensor back = y.to(Device.CPU);
        assertEquals("ToCopyBackward0", back.gradFnName());
        back.sum().backward();
        // d/dx sum(x @ w) = ones @ w.T: row sums of w, [1, 2] in every row
        assertEquals(Device.CPU, x.grad().device());
        assertArrayEquals(new float[] {1, 2, 1, 2}, x.grad().toFloatArray(), 0f);
    }

    @Test
    public void aTensorMovesBetweenDevicesAndBack() {
        Device npuDevice = new Device("npu", 0);
        Tensor a = Tensor.of(new float[] {1, 2, 3, 4}, 2, 2);
        Tensor onNpu = a.t().to(npuDevice);
        assertEquals(npuDevice, onNpu.device());
        assertArrayEquals(new float[] {1, 3, 2, 4}, onNpu.to(Device.CPU).toFloatArray(), 0f);
        assertSame(a, a.to(Device.CPU));
    }

    @Test
    public void dtypesConvertThroughCopy() {
        Tensor f = Tensor.arange(4).to(DType.FLOAT32);
        assertEquals(DType.FLOAT32, f.dtype());
        assertArrayEquals(new float[] {0, 1, 2, 3}, f.toFloatArray(), 0f);
        assertEquals(3f, Tensor.arange(4).slice(0, 3, 4).item(), 0f);
        String m = assertThrows(IllegalArgumentException.class, () -> Tensor.arange(2).requiresGrad(true))
                .getMessage();
        assertTrue(m, m.contains("only float tensors"));
    }

    @Test
    public void writesIntoAnExpandedViewAndEmptyDimListsBehaveAsInTorch() {
        Tensor row = Tensor.of(new float[] {1, 2}, 2).expand(3, 2);
        String m = assertThrows(IllegalArgumentException.class, () -> row.fill_(0)).getMessage();
        assertTrue(m, m.contains("aten::fill_") && m.contains("single memory location"));
        assertThrows(IllegalArgumentException.class, () -> row.copy_(Tensor.zeros(3, 2)));
        Tensor t = Tensor.of(new float[] {1, 2, 3, 4}, 2, 2);
        assertArrayEquals(new long[0], t.sum(new int[0], false).shape());
        assertEquals(10f, t.sum(new int[0], false).item(), 0f);
        String stride = assertThrows(IllegalArgumentException.class,
                () -> Functional.conv2d(Tensor.zeros(1, 1, 4, 4), Tensor.zeros(1, 1, 2, 2), null, 0, 0)).getMessage();
        assertTrue(stride, stride.contains("aten::convolution") && stride.contains("stride"));
        assertThrows(IllegalArgumentException.class, () -> Tensor.scalar(1f).indexSelect(0, Tensor.arange(1)));
    }

    @Test
    public void aBackendCannotTakeAKeyAnotherHolds() {
        FakeBackend second = new FakeBackend("other", DispatchKey.NPU);
        String m = assertThrows(IllegalStateException.class, () -> Dispatcher.install(second, "x", "1"))
                .getMessage();
        assertTrue(m, m.contains("NPU") && m.contains("npu backend"));
    }
}
