package dev.vantage.device.cpu.internal;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import org.junit.Test;

import dev.vantage.tensor.DType;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.KernelOps;

/** Max pooling against a scan of each window, with padding that never wins. */
public class PoolKernelsTest extends KernelTestSupport {

    @Test
    public void maxPoolPicksEachWindowsMaximumAndItsPosition() {
        // one 4x5 plane; 3x3 windows, stride 2, padding 1: windows start at rows -1, 1 and columns -1, 1, 3
        float[] v = {
            -5, -1, -7, -3, -2,
            -4, -6, -8, -9, -1,
            -2, -3, -1, -6, -4,
            -9, -8, -7, -2, -5};
        Tensor x = Tensor.of(v, 1, 1, 4, 5);
        Tensor values = Tensor.zeros(1, 1, 2, 3);
        Tensor indices = zeros(DType.INT64, 1, 1, 2, 3);
        long[][] ints = ints(list(3, 3), list(2, 2), list(1, 1));
        call(KernelOps.MAX_POOL2D_WITH_INDICES, new Tensor[] {x}, new Tensor[] {values, indices}, null, ints);
        // padding is -inf, so an all-negative border window still picks a real element
        assertArrayEquals(new float[] {-1, -1, -1, -2, -1, -1}, values.toFloatArray(), 0);
        assertArrayEquals(new long[] {1, 1, 9, 10, 12, 9}, indices.storage().longs());
    }

    @Test
    public void maxPoolMatchesAWindowScanOnAStridedBatch() {
        Tensor x = rand(1, 2, 7, 6, 3).permute(0, 3, 1, 2);      // [2, 3, 7, 6]
        int kh = 3;
        int kw = 2;
        int oh = (7 + 2 - kh) / 2 + 1;
        int ow = (6 + 0 - kw) / 1 + 1;
        Tensor values = Tensor.zeros(2, 3, oh, ow);
        Tensor indices = zeros(DType.INT64, 2, 3, oh, ow);
        long[][] ints = ints(list(kh, kw), list(2, 1), list(1, 0));
        call(KernelOps.MAX_POOL2D_WITH_INDICES, new Tensor[] {x}, new Tensor[] {values, indices}, null, ints);
        float[] got = values.toFloatArray();
        long[] where = indices.storage().longs();
        double[] grad = new double[x.numel()];
        Tensor g = rand(2, 2, 3, oh, ow);
        for (int n = 0; n < 2; n++) {
            for (int c = 0; c < 3; c++) {
                for (int y = 0; y < oh; y++) {
                    for (int z = 0; z < ow; z++) {
                        float best = Float.NEGATIVE_INFINITY;
                        int at = -1;
                        for (int i = 0; i < kh; i++) {
                            for (int j = 0; j < kw; j++) {
                                int h = y * 2 - 1 + i;
                                int w = z + j;
                                if (h >= 0 && h < 7 && w < 6 && get(x, n, c, h, w) > best) {
                                    best = get(x, n, c, h, w);
                                    at = h * 6 + w;
                                }
                            }
                        }
                        int o = ((n * 3 + c) * oh + y) * ow + z;
                        assertEquals(best, got[o], 0);
                        assertEquals(at, where[o]);
                        grad[(n * 3 + c) * 42 + at] += get(g, n, c, y, z);
                    }
                }
            }
        }
        Tensor gx = run(KernelOps.MAX_POOL2D_WITH_INDICES_BACKWARD, new Tensor[] {g, x, indices}, null, ints,
                2, 3, 7, 6);
        assertClose("grad_input, overlapping windows adding up", grad, gx.toFloatArray(), 1e-6, 1e-7);
    }

    @Test
    public void maxPoolBackwardRejectsAnIndexOutsideThePlane() {
        Tensor x = rand(3, 1, 1, 2, 2);
        Tensor indices = Tensor.ofLongs(new long[] {4}, 1, 1, 1, 1);
        IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, () -> run(
                KernelOps.MAX_POOL2D_WITH_INDICES_BACKWARD, new Tensor[] {Tensor.ones(1, 1, 1, 1), x, indices},
                null, ints(list(2, 2), list(2, 2), list(0, 0)), 1, 1, 2, 2));
        assertEquals("aten::max_pool2d_with_indices_backward: index 4 is outside a plane of 4 elements of input"
                + " [1, 1, 2, 2] float", e.getMessage());
    }
}
