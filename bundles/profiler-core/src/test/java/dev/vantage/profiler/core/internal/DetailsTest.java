package dev.vantage.profiler.core.internal;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

import dev.vantage.profiler.dispatch.OpNames;
import dev.vantage.trace.engine.store.Column;
import dev.vantage.trace.engine.store.Details;

/**
 * Details the recorder writes for its ops (the trace engine's encoding) read back exactly, in the narrow and the wide
 * input layout alike.
 */
public class DetailsTest {

    private final Column arena = Column.longsInWholeBlocks(bytes -> OffHeap.DETAILS.take());
    private final Details.Recent recent = new Details.Recent();

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
        assertTrue(Details.write(arena, recent, 5, op, true, 3));
        assertTrue(Details.writeMemory(arena, 6, OpNames.intern("npu"), 1, 0x1000, 512, 2048, 4096, 0));
        assertTrue(Details.write(arena, recent, 8, TestOp.of("aten::add", new long[] {4, 4}, new long[0]), true, -1));

        Column view = arena.frozen(arena.size());
        long[] next = new long[1];
        Details.Read first = Details.read(view, 0, OpNames::name, next);
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
        Details.Read last = Details.read(view, lastAt, OpNames::name, next);
        assertArrayEquals(new long[] {4, 4}, last.shapes()[0]);
        assertEquals(-1, last.sequenceNumber());
        assertEquals(-1, last.stackId());
        assertEquals(view.size(), next[0]);
        assertEquals(view.size(), Details.skip(view, lastAt));
    }

    @Test
    public void aMatrixInputTakesTwoLongs() {
        Details.write(arena, recent, 0, TestOp.of("aten::mm", new long[] {128, 256}, new long[] {256, 64}), true, -1);
        // the entry's first long, then two per matrix: dtype, rank and the first dim; the second dim
        assertEquals(1 + 2 + 2, arena.size());
    }

    @Test
    public void anOpRecordedAgainWithTheSameInputsRefersBackAndReadsTheSame() {
        TestOp mm = TestOp.of("aten::mm", new long[] {128, 256}, new long[] {256, 64});
        TestOp add = TestOp.of("aten::add", new long[] {128, 64}, new long[] {64});
        assertTrue(Details.write(arena, recent, 0, mm, true, -1));
        long full = arena.size();
        assertEquals("the first mm is written whole", 1 + 2 + 2, full);
        assertTrue(Details.write(arena, recent, 1, add, true, 7));
        long afterAdd = arena.size();
        // a loop: mm and add again, the same inputs; each entry is its head (and the add's stack id) only
        assertTrue(Details.write(arena, recent, 2, mm, true, -1));
        assertEquals(afterAdd + 1, arena.size());
        assertTrue(Details.write(arena, recent, 3, add, true, 8));
        assertEquals(afterAdd + 1 + 2, arena.size());
        // new inputs for mm are written whole, and become what later mms refer to
        TestOp wider = TestOp.of("aten::mm", new long[] {128, 512}, new long[] {512, 64});
        assertTrue(Details.write(arena, recent, 4, wider, true, -1));
        assertEquals(afterAdd + 3 + 5, arena.size());
        assertTrue(Details.write(arena, recent, 5, wider, true, -1));

        Column view = arena.frozen(arena.size());
        long[][][] expected = {
            {{128, 256}, {256, 64}}, {{128, 64}, {64}}, {{128, 256}, {256, 64}}, {{128, 64}, {64}},
            {{128, 512}, {512, 64}}, {{128, 512}, {512, 64}}};
        int[] stacks = {-1, 7, -1, 8, -1, -1};
        long at = 0;
        long[] next = new long[1];
        for (int slot = 0; slot < expected.length; slot++) {
            assertEquals(slot, Details.slot(view, at));
            Details.Read r = Details.read(view, at, OpNames::name, next);
            assertEquals("entry " + slot, expected[slot].length, r.shapes().length);
            for (int i = 0; i < expected[slot].length; i++) {
                assertArrayEquals("entry " + slot + " input " + i, expected[slot][i], r.shapes()[i]);
                assertEquals("float", r.types()[i]);
            }
            assertEquals(stacks[slot], r.stackId());
            assertEquals("skip and read agree at entry " + slot, next[0], Details.skip(view, at));
            at = next[0];
        }
        assertEquals(view.size(), at);
    }

    @Test
    public void aRepeatTooFarFromItsSourceIsWrittenWhole() {
        TestOp add = TestOp.of("aten::add", new long[] {4, 4}, new long[] {4});
        TestOp other = TestOp.of("aten::relu", new long[] {4, 4});
        assertTrue(Details.write(arena, recent, 0, add, true, -1));
        long before = arena.size();
        // more than MAX_BACK longs of other ops' details since the add
        int others = Details.MAX_BACK / 2 + 1;
        for (int i = 0; i < others; i++) {
            assertTrue(Details.write(arena, recent, 1, other, true, i));
        }
        long afterOthers = arena.size();
        assertTrue(afterOthers - before > Details.MAX_BACK);
        assertTrue(Details.write(arena, recent, 2, add, true, -1));
        assertEquals("written whole: head and two inputs of two longs and one long", afterOthers + 1 + 2 + 1,
                arena.size());
        Details.Read r = Details.read(arena.frozen(arena.size()), afterOthers, OpNames::name, null);
        assertArrayEquals(new long[] {4, 4}, r.shapes()[0]);
        assertArrayEquals(new long[] {4}, r.shapes()[1]);
    }
}
