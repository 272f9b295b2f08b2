package dev.vantage.trace.engine;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import java.util.List;

import org.junit.Test;

import dev.vantage.profiler.api.EventAverage;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.api.SortKey;

/** The table layout, checked against text written out by hand from torch's format rules. */
public class KeyAveragesTableTest {

    // forward: 2 calls, 3 ms total, 1 ms self; aten::mm: 4 calls, 2 ms total and self. Self total: 3 ms.
    private final KeyAveragesImpl averages = KeyAveragesImpl.of(List.of(
            row("forward", 2, 3_000_000, 1_000_000),
            row("aten::mm", 4, 2_000_000, 2_000_000)), "", 0);

    static EventAverage row(String name, long count, long total, long self) {
        return new Average(EventKind.CPU_OP, name, count, total, self, 0, 0, "", List.of(), 0, 0, 0, 0, 0, 0, 0, 0);
    }

    @Test
    public void formatsLikeTorchSortedBySelfTime() {
        // name column: longest name (8) + 4 = 12 wide, right-aligned; value columns 12 wide; 2 spaces after each
        String sep = "-".repeat(12) + "  " + ("-".repeat(12) + "  ").repeat(6);
        String expected = sep + "\n"
                + "        Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg    # of Calls  \n"
                + sep + "\n"
                + "    aten::mm        66.67%       2.000ms        66.67%       2.000ms     500.000us             4  \n"
                + "     forward        33.33%       1.000ms       100.00%       3.000ms       1.500ms             2  \n"
                + sep + "\n"
                + "Self CPU time total: 3.000ms\n";
        assertEquals(expected, averages.table(SortKey.SELF_CPU_TIME_TOTAL, -1));
    }

    @Test
    public void sortsByTotalAndLimitsRows() {
        String table = averages.table(SortKey.CPU_TIME_TOTAL, 1);
        String[] lines = table.split("\n");
        assertEquals(6, lines.length);
        assertEquals("     forward", lines[3].substring(0, 12));
    }

    @Test
    public void cutsLongNamesAt52CharactersLikeTorch() {
        String longName = "x".repeat(60);
        KeyAveragesImpl one = KeyAveragesImpl.of(List.of(row(longName, 1, 10, 10)), "", 0);
        String row = one.table(SortKey.COUNT, -1).split("\n")[3];
        assertEquals("x".repeat(52) + "...", row.substring(0, 55));
    }

    @Test
    public void rejectsARowLimitBelowMinusOne() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> averages.table(SortKey.COUNT, -2));
        assertEquals("row limit must be -1 (all) or 0 or more, not -2", e.getMessage());
    }

    @Test
    public void formatsTimesInTorchUnits() {
        assertEquals("999.000us", dev.vantage.profiler.trace.TraceTime.human(999_000));
        assertEquals("1.000ms", dev.vantage.profiler.trace.TraceTime.human(1_000_000));
        assertEquals("1.500s", dev.vantage.profiler.trace.TraceTime.human(1_500_000_000));
        assertEquals("0.012us", dev.vantage.profiler.trace.TraceTime.human(12));
        assertEquals("NaN", TableFormatter.share(0, 0));
        assertEquals("-50.00%", TableFormatter.share(-1, 2));
    }
}
