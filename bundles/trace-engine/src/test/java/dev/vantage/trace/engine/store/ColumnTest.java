package dev.vantage.trace.engine.store;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** The one column: values across block boundaries, growth of small columns, truncation, spilling to a file. */
public class ColumnTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Test
    public void valuesReadBackAcrossBlockBoundariesInEveryWidth() {
        long n = 2L * Column.BLOCK_VALUES + 17;
        Column longs = Column.longs(BlockSource.DIRECT);
        Column ints = Column.ints(BlockSource.HEAP);
        Column bytes = Column.bytes(BlockSource.HEAP);
        for (long i = 0; i < n; i++) {
            assertTrue(longs.add(i * 31 + (1L << 40)));
            assertTrue(ints.add(-i));
            assertTrue(bytes.add(i % 100));
        }
        assertEquals(n, longs.size());
        Column view = longs.frozen(longs.size());
        for (long i = 0; i < n; i++) {
            assertEquals(i * 31 + (1L << 40), view.getLong(i));
            assertEquals(-i, ints.getInt(i));
            assertEquals(i % 100, bytes.get(i));
        }
    }

    @Test
    public void aSmallColumnStartsSmallAndGrowsItsFirstBlock() {
        AtomicInteger asked = new AtomicInteger();
        BlockSource counting = b -> {
            asked.addAndGet(b);
            return BlockSource.HEAP.take(b);
        };
        Column c = Column.longs(counting);
        c.add(1);
        assertEquals("the first block of a growing column holds 64 values", 64 * Long.BYTES, asked.get());
        for (int i = 1; i < 1000; i++) {
            c.add(i + 1);
        }
        for (int i = 0; i < 1000; i++) {
            assertEquals(i + 1, c.getLong(i));
        }
        assertTrue("grown by doubling, far less than a whole block", asked.get() < Column.BLOCK_VALUES * Long.BYTES);
    }

    @Test
    public void appendsAfterATruncationOverwriteWhatWasUndone() {
        Column arena = Column.longsInWholeBlocks(BlockSource.DIRECT);
        int boundary = Column.BLOCK_VALUES;
        for (int i = 0; i < boundary + 5; i++) {
            arena.addLong(i);
        }
        // back into the first block, then across the boundary again
        arena.truncate(boundary - 3);
        for (int i = 0; i < 10; i++) {
            arena.addLong(-i - 1);
        }
        // back to the boundary exactly: the next value starts the second block
        arena.truncate(boundary);
        arena.addLong(99);
        Column view = arena.frozen(arena.size());
        assertEquals(boundary + 1, arena.size());
        assertEquals(boundary - 4, view.getLong(boundary - 4));
        assertEquals(-1, view.getLong(boundary - 3));
        assertEquals(-3, view.getLong(boundary - 1));
        assertEquals(99, view.getLong(boundary));
    }

    @Test
    public void aSourceWithoutBlocksRefusesTheAppendAndKeepsTheColumn() {
        int[] left = {1};
        Column c = Column.longsInWholeBlocks(b -> left[0]-- > 0 ? ByteBuffer.allocate(b) : null);
        for (int i = 0; i < Column.BLOCK_VALUES; i++) {
            assertTrue(c.addLong(i));
        }
        assertFalse(c.addLong(-1));
        assertEquals(Column.BLOCK_VALUES, c.size());
        assertEquals(Column.BLOCK_VALUES - 1, c.getLong(Column.BLOCK_VALUES - 1));
    }

    @Test
    public void aSpillFileMapsBlocksBeyondItsHeapShareAndLeavesNoFile() throws Exception {
        Path dir = tmp.newFolder().toPath();
        try (SpillFile spill = new SpillFile(dir, 0)) {
            Column c = Column.longs(spill);
            for (int i = 0; i < 3 * Column.BLOCK_VALUES; i++) {
                c.add(i);
            }
            c.sort();
            assertTrue(spill.mappedBytes() > 0);
            assertEquals(0, c.getLong(0));
            assertEquals(3L * Column.BLOCK_VALUES - 1, c.getLong(3L * Column.BLOCK_VALUES - 1));
            try (var files = Files.list(dir)) {
                assertEquals("the file's name is gone while it is mapped", 0, files.count());
            }
        }
    }

    @Test
    public void blocksCutFromOneMappingAreZeroedAndApart() throws Exception {
        try (SpillFile spill = new SpillFile(tmp.newFolder().toPath(), 0)) {
            // many columns taking blocks in turn, of every width: each block its own bytes
            Column[] columns = {Column.longs(spill), Column.ints(spill), Column.bytes(spill), Column.longs(spill)};
            int n = 5 * Column.BLOCK_VALUES + 17;
            for (int i = 0; i < n; i++) {
                for (int k = 0; k < columns.length; k++) {
                    columns[k].add(i * 31L + k);
                }
            }
            for (int i = 0; i < n; i++) {
                assertEquals(i * 31L, columns[0].getLong(i));
                assertEquals((int) (i * 31L + 1), columns[1].getInt(i));
                assertEquals((byte) (i * 31L + 2), columns[2].get(i));
                assertEquals(i * 31L + 3, columns[3].getLong(i));
            }
            // a column grown in a filled source starts from zeros
            Column zeros = Column.longs(spill, 3L * Column.BLOCK_VALUES, 0);
            for (long i = 0; i < zeros.size(); i += 997) {
                assertEquals(0, zeros.getLong(i));
            }
            long blocks = (2L * Long.BYTES + Integer.BYTES + 1) * n + 3L * Column.BLOCK_VALUES * Long.BYTES;
            assertTrue("mapped " + spill.mappedBytes() + " for " + blocks + " bytes of values",
                    spill.mappedBytes() >= blocks && spill.mappedBytes() < 2 * blocks);
        }
    }

    @Test
    public void aFilledColumnHoldsItsFillInEveryBlockAndGrowsOnFromItsEnd() {
        for (long size : new long[] {0, 1, 100, Column.BLOCK_VALUES, 2L * Column.BLOCK_VALUES + 5}) {
            for (long fill : new long[] {0, -1, 7}) {
                Column longs = Column.longs(BlockSource.HEAP, size, fill);
                Column ints = Column.ints(BlockSource.HEAP, size, (int) fill);
                assertEquals(size, longs.size());
                assertEquals(size, ints.size());
                for (long i = 0; i < size; i++) {
                    assertEquals(size + " x " + fill + " at " + i, fill, longs.getLong(i));
                    assertEquals(size + " x " + fill + " at " + i, (int) fill, ints.getInt(i));
                }
                // appended after the fill, across the next block boundary
                for (int i = 0; i < Column.BLOCK_VALUES + 3; i++) {
                    longs.add(i + 1000L);
                    ints.add(i + 1000);
                }
                for (int i = 0; i < Column.BLOCK_VALUES + 3; i += 101) {
                    assertEquals(i + 1000L, longs.getLong(size + i));
                    assertEquals(i + 1000, ints.getInt(size + i));
                }
                assertEquals(fill, size == 0 ? fill : longs.getLong(size - 1));
            }
        }
    }

    @Test
    public void sortsALongColumnAscending() {
        Column c = Column.longs(BlockSource.HEAP);
        long[] values = {5, -3, 9, 9, 0, Long.MIN_VALUE, 7};
        for (long v : values) {
            c.add(v);
        }
        c.sort();
        java.util.Arrays.sort(values);
        for (int i = 0; i < values.length; i++) {
            assertEquals(values[i], c.getLong(i));
        }
    }
}
