package dev.vantage.tensor.spi;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

import dev.vantage.tensor.Device;
import dev.vantage.tensor.Tensor;

/** When an elementwise kernel may run one loop over its arrays, and what it reads them as. */
public class KernelCallTest {

    private static Tensor floats(int n, long... shape) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = i;
        }
        return Tensor.of(v, shape);
    }

    private static KernelCall call(Tensor[] in, Tensor out) {
        return new KernelCall("aten::add", in, new Tensor[] {out}, null, null);
    }

    @Test
    public void operandsOfTheOutputsShapeAllContiguousAreDense() {
        Tensor a = floats(6, 2, 3);
        Tensor b = floats(6, 2, 3);
        Tensor out = floats(6, 2, 3);
        assertTrue(call(new Tensor[] {a, b}, out).dense());
        // an absent second input (a scalar) does not count
        assertTrue(call(new Tensor[] {a, null}, out).dense());
        // in place: output 0 is input 0, one layout
        assertTrue(call(new Tensor[] {out, b}, out).dense());
    }

    @Test
    public void broadcastTransposedOrOverlappingOperandsAreNot() {
        Tensor out = floats(6, 2, 3);
        assertFalse("broadcast", call(new Tensor[] {floats(6, 2, 3), floats(3, 3)}, out).dense());
        assertFalse("transposed", call(new Tensor[] {floats(6, 3, 2).t(), floats(6, 2, 3)}, out).dense());
        Tensor base = floats(5, 5);
        Tensor dst = base.slice(0, 1, 5);
        assertFalse("a view of the output's storage elsewhere",
                call(new Tensor[] {dst, base.slice(0, 0, 4)}, dst).dense());
        assertFalse("a non-contiguous output", call(new Tensor[] {floats(6, 3, 2)}, floats(6, 2, 3).t()).dense());
    }

    @Test
    public void aCallOfOneOutputHoldsItWithoutAnArrayAndAsItIsDense() {
        Tensor a = floats(6, 2, 3);
        Tensor out = floats(6, 2, 3);
        KernelCall one = new KernelCall("aten::neg", new Tensor[] {a}, out, null, null);
        assertEquals(1, one.outputCount());
        assertSame(out, one.output(0));
        assertSame(out.storage().floats(), one.outputFloats(0));
        assertTrue(one.dense());
        IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, () -> one.output(1));
        assertTrue(e.getMessage(), e.getMessage().contains("aten::neg has one output"));
        KernelCall transposed = new KernelCall("aten::neg", new Tensor[] {floats(6, 3, 2)}, floats(6, 2, 3).t(),
                null, null);
        assertFalse("a non-contiguous output", transposed.dense());
    }

    @Test
    public void floatsAreTheStoragesArraysAndAnotherDtypeIsRefusedNamingTheOp() {
        Tensor a = floats(2, 2);
        Tensor out = floats(2, 2);
        KernelCall c = call(new Tensor[] {a}, out);
        assertSame(a.storage().floats(), c.floats(0));
        assertSame(out.storage().floats(), c.outputFloats(0));
        Tensor longs = Tensor.ofLongs(new long[] {1, 2}, 2);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> call(new Tensor[] {longs}, out).floats(0));
        assertEquals("aten::add: expected a float tensor, got [2] long", e.getMessage());
        assertArrayEquals(new float[] {0, 1}, c.floats(0), 0f);
        assertEquals(Device.CPU, a.device());
    }
}
