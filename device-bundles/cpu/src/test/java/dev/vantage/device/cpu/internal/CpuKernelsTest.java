package dev.vantage.device.cpu.internal;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import org.junit.Test;

import dev.vantage.tensor.Tensor;

/** Kernel results against values worked out by hand. */
public class CpuKernelsTest {

    private static final HostAllocator MEMORY = new HostAllocator();

    @Test
    public void matmulMultipliesRowsByColumns() {
        Tensor a = Tensor.of(new float[] {1, 2, 3, 4, 5, 6}, 2, 3);
        Tensor b = Tensor.of(new float[] {7, 8, 9, 10, 11, 12}, 3, 2);
        Tensor c = CpuKernels.matmul(MEMORY, new MatmulKernel(null), a, b);
        // [1 2 3; 4 5 6] x [7 8; 9 10; 11 12] = [58 64; 139 154]
        assertArrayEquals(new long[] {2, 2}, c.shape());
        assertArrayEquals(new float[] {58, 64, 139, 154}, c.toArray(), 0f);
    }

    @Test
    public void elementwiseOpsAndSum() {
        Tensor a = Tensor.of(new float[] {1, -2, 3}, 3);
        Tensor b = Tensor.of(new float[] {4, 5, -6}, 3);
        assertArrayEquals(new float[] {5, 3, -3}, CpuKernels.add(MEMORY, a, b).toArray(), 0f);
        assertArrayEquals(new float[] {4, -10, -18}, CpuKernels.mul(MEMORY, a, b).toArray(), 0f);
        assertEquals(2f, CpuKernels.sum(MEMORY, a).item(), 0f);
        assertEquals(0, CpuKernels.sum(MEMORY, a).dim());
    }

    @Test
    public void mismatchedShapesNameTheOpTheShapesAndTheDevice() {
        Tensor a = Tensor.of(new float[6], 2, 3);
        IllegalArgumentException mm = assertThrows(IllegalArgumentException.class,
                () -> CpuKernels.matmul(MEMORY, new MatmulKernel(null), a, a));
        assertEquals("aten::matmul: shapes [2, 3] and [2, 3] cannot be multiplied (on cpu:0)", mm.getMessage());
        IllegalArgumentException add = assertThrows(IllegalArgumentException.class,
                () -> CpuKernels.add(MEMORY, a, Tensor.of(new float[3], 3)));
        assertEquals("aten::add: shapes [2, 3] and [3] differ (on cpu:0)", add.getMessage());
    }
}
