package dev.vantage.device.spyre.internal;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;

import java.util.Arrays;

import org.junit.Test;

import dev.vantage.tensor.Tensor;

/** The driver's fill sets exactly a view's elements, converted to its dtype. */
public class DeviceFillTest {

    private static float[] ones(int n) {
        float[] v = new float[n];
        Arrays.fill(v, 1f);
        return v;
    }

    @Test
    public void fillsAStridedViewAndNothingElse() {
        float[] v = ones(16);
        Tensor t = Tensor.of(v, 4, 4);
        DeviceFill.fill(t.transpose(0, 1).slice(0, 1, 3), 0);
        for (int r = 0; r < 4; r++) {
            for (int c = 0; c < 4; c++) {
                assertEquals("[" + r + "][" + c + "]", c == 1 || c == 2 ? 0f : 1f, v[r * 4 + c], 0f);
            }
        }
    }

    @Test
    public void fillsAContiguousViewFromItsOffset() {
        float[] v = ones(16);
        DeviceFill.fill(Tensor.of(v, 4, 4).slice(0, 1, 3), 2.5);
        for (int i = 0; i < 16; i++) {
            assertEquals("element " + i, i >= 4 && i < 12 ? 2.5f : 1f, v[i], 0f);
        }
    }

    @Test
    public void convertsTheValueToTheDtype() {
        long[] l = new long[3];
        DeviceFill.fill(Tensor.ofLongs(l, 3), 3.9);
        assertArrayEquals(new long[] {3, 3, 3}, l);
        boolean[] b = new boolean[2];
        DeviceFill.fill(Tensor.ofBools(b, 2), 2);
        assertArrayEquals(new boolean[] {true, true}, b);
        float[] scalar = {1f};
        DeviceFill.fill(Tensor.of(scalar), 0);
        assertEquals(0f, scalar[0], 0f);
    }
}
