package dev.vantage.analysis.sql;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** The file a long table is kept in while {@code analyze} reads the ranks: what goes in comes out, rank by rank. */
public class SpilledRowsTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private static List<Object> row(Object... values) {
        return Arrays.asList(values);
    }

    @Test
    public void everyValueComesBackWithItsTypeAndTheRanksInOrder() throws IOException {
        Path file = tmp.getRoot().toPath().resolve("t.rows");
        List<List<Object>> rank0 = List.of(row(0, 1L, 2.5, "void kernel<float>(…)", null, true),
                row(0, Long.MAX_VALUE, -0.0, "", 1.5f, false));
        List<List<Object>> rank1 = List.of(row(1, -1L, Double.NaN, "void kernel<float>(…)", "x", Boolean.TRUE));
        List<List<Object>> rank2 = List.of(row(2, 7L, 1e-300, "é ✓ \u0000", Integer.MIN_VALUE, null));
        try (SpilledRows rows = new SpilledRows(file, 6)) {
            // the traces come in any order; the table is read rank after rank
            rows.append(2, rank2);
            rows.append(0, rank0);
            rows.append(1, List.of());
            rows.append(1, rank1);
            assertEquals(4, rows.size());
            List<List<Object>> expected = new ArrayList<>(rank0);
            expected.addAll(rank1);
            expected.addAll(rank2);
            for (int pass = 0; pass < 2; pass++) {
                List<List<Object>> read = new ArrayList<>(rows);
                assertEquals(expected, read);
                for (int i = 0; i < read.size(); i++) {
                    for (int c = 0; c < 6; c++) {
                        Object v = expected.get(i).get(c);
                        assertEquals(v == null ? null : v.getClass(), read.get(i).get(c) == null ? null
                                : read.get(i).get(c).getClass());
                    }
                }
            }
            // backwards, and a jump into the middle of another rank's part
            assertEquals(rank2.get(0), rows.get(3));
            assertEquals(rank0.get(1), rows.get(1));
            assertEquals(rank1.get(0), rows.get(2));
            try {
                rows.append(3, rank0);
                fail("rows added after the table was read");
            } catch (IllegalStateException expectedRefusal) {
                // the reader's parts are fixed at the first read
            }
            assertTrue(Files.exists(file));
        }
        assertFalse("closing deletes the file", Files.exists(file));
    }

    @Test
    public void textsBeyondTheNumberedOnesAreWrittenWholeAndReadBack() throws IOException {
        Path file = tmp.getRoot().toPath().resolve("names.rows");
        int texts = SpilledRows.NAMES + 1000;
        List<List<Object>> written = new ArrayList<>();
        for (int i = 0; i < texts; i++) {
            written.add(row("kernel_" + i));
        }
        // every text a second time: the numbered ones by number, the rest whole again
        written.addAll(new ArrayList<>(written));
        try (SpilledRows rows = new SpilledRows(file, 1)) {
            rows.append(0, written);
            assertEquals(written, new ArrayList<>(rows));
        }
    }

    @Test
    public void aRowOfTheWrongWidthOrAnUnknownTypeIsRefused() throws IOException {
        try (SpilledRows rows = new SpilledRows(tmp.getRoot().toPath().resolve("bad.rows"), 2)) {
            try {
                rows.append(0, List.of(row(1)));
                fail("a row of one value in a table of two");
            } catch (IllegalArgumentException expected) {
                assertTrue(expected.getMessage(), expected.getMessage().contains("1 values"));
            }
            try {
                rows.append(0, List.of(row(1, new Object())));
                fail("an Object is not a value of a table");
            } catch (IllegalArgumentException expected) {
                assertTrue(expected.getMessage(), expected.getMessage().contains("java.lang.Object"));
            }
        }
    }
}
