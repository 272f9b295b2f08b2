package dev.vantage.device.cpu.internal;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import org.junit.Test;

import dev.vantage.tensor.DType;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.KernelOps;

/** cat, index_select and index_add_ against element-by-element loops. */
public class IndexKernelsTest extends KernelTestSupport {

    @Test
    public void catJoinsFloatViewsAlongEachDim() {
        Tensor a = rand(1, 3, 2).t();                            // [2, 3]
        Tensor b = rand(2, 2, 4);
        Tensor c = rand(3, 2, 1);
        float[] out = run(KernelOps.CAT, new Tensor[] {a, b, c}, null, ints(list(1)), 2, 8).toFloatArray();
        for (int i = 0; i < 2; i++) {
            for (int j = 0; j < 8; j++) {
                float expected = j < 3 ? get(a, i, j) : j < 7 ? get(b, i, j - 3) : get(c, i, 0);
                assertEquals("[" + i + "][" + j + "]", expected, out[i * 8 + j], 0);
            }
        }
        Tensor rows = run(KernelOps.CAT, new Tensor[] {a, rand(4, 1, 3)}, null, ints(list(-2)), 3, 3);
        assertEquals(get(a, 1, 2), rows.toFloatArray()[5], 0);
    }

    @Test
    public void catJoinsLongsAndBools() {
        Tensor out = zeros(DType.INT64, 5);
        call(KernelOps.CAT, new Tensor[] {Tensor.ofLongs(new long[] {7, 8}, 2), Tensor.ofLongs(new long[] {9, 1, 2},
            3)}, new Tensor[] {out}, null, ints(list(0)));
        assertArrayEquals(new long[] {7, 8, 9, 1, 2}, out.storage().longs());
        Tensor mask = zeros(DType.BOOL, 2, 2);
        call(KernelOps.CAT, new Tensor[] {Tensor.ofBools(new boolean[] {true, false}, 2, 1),
            Tensor.ofBools(new boolean[] {false, true}, 2, 1)}, new Tensor[] {mask}, null, ints(list(1)));
        assertArrayEquals(new boolean[] {true, false, false, true}, mask.storage().bools());
    }

    @Test
    public void catRejectsAnInputThatDoesNotFit() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> run(KernelOps.CAT,
                new Tensor[] {rand(1, 2, 3), rand(2, 3, 3)}, null, ints(list(1)), 2, 6));
        assertEquals("aten::cat: input 1 [3, 3] float does not fit output [2, 6] float outside dimension 1",
                e.getMessage());
    }

    @Test
    public void indexSelectGathersSlicesAlongAnyDim() {
        Tensor x = rand(5, 4, 3, 5).permute(2, 0, 1);            // [5, 4, 3]
        Tensor index = Tensor.ofLongs(new long[] {3, 0, 3, 4, 9}, 5).slice(0, 0, 4);   // [3, 0, 3, 4]
        for (int dim = 0; dim < 3; dim++) {
            long[] shape = x.shape();
            shape[dim] = 4;
            if (dim == 1) {
                index = Tensor.ofLongs(new long[] {3, 0, 3, 1}, 4);
            } else if (dim == 2) {
                index = Tensor.ofLongs(new long[] {2, 2, 0, 1}, 4);
            }
            Tensor out = run(KernelOps.INDEX_SELECT, new Tensor[] {x, index}, null, ints(list(dim)), shape);
            float[] got = out.toFloatArray();
            int[] s = out.sizes();
            for (int i = 0; i < got.length; i++) {
                int[] at = index(s, i);
                at[dim] = (int) getLong(index, at[dim]);
                assertEquals("dim " + dim + " element " + i, get(x, at), got[i], 0);
            }
        }
    }

    @Test
    public void indexSelectOfLongs() {
        Tensor labels = Tensor.ofLongs(new long[] {10, 11, 12, 13}, 4);
        Tensor out = zeros(DType.INT64, 3);
        call(KernelOps.INDEX_SELECT, new Tensor[] {labels, Tensor.ofLongs(new long[] {2, 2, 0}, 3)},
                new Tensor[] {out}, null, ints(list(0)));
        assertArrayEquals(new long[] {12, 12, 10}, out.storage().longs());
    }

    @Test
    public void indexSelectRejectsAnOutOfRangeIndexNamingTheOpIndexAndSize() {
        Tensor x = rand(6, 4, 3);
        IndexOutOfBoundsException high = assertThrows(IndexOutOfBoundsException.class, () -> run(
                KernelOps.INDEX_SELECT, new Tensor[] {x, Tensor.ofLongs(new long[] {1, 4}, 2)}, null,
                ints(list(0)), 2, 3));
        assertEquals("aten::index_select: index 4 is out of bounds for dimension 0 with size 4", high.getMessage());
        IndexOutOfBoundsException negative = assertThrows(IndexOutOfBoundsException.class, () -> run(
                KernelOps.INDEX_SELECT, new Tensor[] {x, Tensor.ofLongs(new long[] {-1}, 1)}, null,
                ints(list(1)), 4, 1));
        assertEquals("aten::index_select: index -1 is out of bounds for dimension 1 with size 3",
                negative.getMessage());
    }

    @Test
    public void indexAddAccumulatesRepeatedIndicesIntoAStridedView() {
        Tensor base = rand(7, 3, 5);
        float[] before = base.toFloatArray().clone();
        Tensor self = base.t();                                  // [5, 3]
        Tensor index = Tensor.ofLongs(new long[] {4, 1, 4, 0}, 4);
        Tensor source = rand(8, 3, 4).t();                        // [4, 3]
        call(KernelOps.INDEX_ADD_, new Tensor[] {self, index, source}, new Tensor[] {self}, new double[] {-0.5},
                ints(list(0)));
        double[] expected = new double[15];
        for (int r = 0; r < 5; r++) {
            for (int c = 0; c < 3; c++) {
                expected[r * 3 + c] = before[c * 5 + r];
            }
        }
        for (int k = 0; k < 4; k++) {
            for (int c = 0; c < 3; c++) {
                expected[(int) getLong(index, k) * 3 + c] += -0.5 * get(source, k, c);
            }
        }
        assertClose("self", expected, read(self), 1e-6, 1e-6);
    }

    @Test
    public void indexAddChecksEveryIndexBeforeWriting() {
        Tensor self = Tensor.zeros(3, 2);
        assertThrows(IndexOutOfBoundsException.class, () -> call(KernelOps.INDEX_ADD_, new Tensor[] {self,
            Tensor.ofLongs(new long[] {0, 3}, 2), Tensor.ones(2, 2)}, new Tensor[] {self}, new double[] {1},
                ints(list(0))));
        assertArrayEquals(new float[6], self.toFloatArray(), 0);
    }
}
