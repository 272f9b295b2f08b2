package dev.vantage.profiler.core.internal;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

/** Details written into an arena read back exactly, in the narrow and the wide input layout alike. */
public class DetailsTest {

    private final LongArena arena = new LongArena(OffHeap.DETAILS::take);

    private static long[][] shapes() {
        return new long[][] {
            {},                                   // a scalar
            {7},
            {2, 3},
            {2, 3, 4},
            {2, 3, 4, 5, 6, 7},
            {0xFFFF_FFFFL, 1},                    // the largest dim that is still narrow
            {1L << 33, 2},                        // a dim over 32 bits makes the input wide
            {3, 4, Long.MAX_VALUE},               // a late wide dim: written narrow first, then rewritten
        };
    }

    @Test
    public void shapesSequenceAndStackReadBackAsWritten() {
        long[][] shapes = shapes();
        TestOp op = new TestOp("aten::test", shapes, 41, 9);
        assertTrue(Details.write(arena, 5, op, true, 3));
        assertTrue(Details.writeMemory(arena, 6, "npu", 1, 0x1000, 512, 2048, 4096));
        assertTrue(Details.write(arena, 8, TestOp.of("aten::add", new long[] {4, 4}, new long[0]), true, -1));

        LongArena.View view = arena.view(arena.size());
        long[] next = new long[1];
        Details.Read first = Details.read(view, 0, next);
        assertEquals(5, Details.slot(view, 0));
        assertEquals(41, first.sequenceNumber());
        assertEquals(9, first.forwardThreadId());
        assertEquals(3, first.stackId());
        assertEquals(shapes.length, first.shapes().length);
        for (int i = 0; i < shapes.length; i++) {
            assertArrayEquals("input " + i, shapes[i], first.shapes()[i]);
            assertEquals(shapes[i].length == 0 ? "Scalar" : "float", first.types()[i]);
        }
        assertEquals(next[0], Details.skip(view, 0));

        long memoryAt = next[0];
        assertEquals(6, Details.slot(view, memoryAt));
        long[] memory = new long[6];
        assertTrue(Details.readMemory(view, memoryAt, memory));
        assertArrayEquals(new long[] {memory[0], 1, 0x1000, 512, 2048, 4096}, memory);
        long lastAt = Details.skip(view, memoryAt);
        assertEquals(8, Details.slot(view, lastAt));
        Details.Read last = Details.read(view, lastAt, next);
        assertArrayEquals(new long[] {4, 4}, last.shapes()[0]);
        assertEquals(-1, last.sequenceNumber());
        assertEquals(-1, last.stackId());
        assertEquals(view.size(), next[0]);
        assertEquals(view.size(), Details.skip(view, lastAt));
    }

    @Test
    public void aMatrixInputTakesTwoLongs() {
        Details.write(arena, 0, TestOp.of("aten::mm", new long[] {128, 256}, new long[] {256, 64}), true, -1);
        // the entry's first long, then two per matrix: dtype, rank and the first dim; the second dim
        assertEquals(1 + 2 + 2, arena.size());
    }
}
