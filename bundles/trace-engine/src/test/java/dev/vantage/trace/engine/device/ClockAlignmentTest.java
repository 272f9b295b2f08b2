package dev.vantage.trace.engine.device;

import static org.junit.Assert.assertEquals;

import java.util.Map;

import org.junit.Test;

/** The clock shift between ranks, from their collectives' ends (nanoseconds). */
public class ClockAlignmentTest {

    @Test
    public void kernelsThatEndTogetherUnderOneShiftGiveItTheMedianOfTheirDifferences() {
        // rank 1's clock runs 3 ms behind; its kernels end 0, 2 and 5 us off rank 0's once shifted; one is an outlier
        Map<String, long[]> rank0 = Map.of("1 allreduce", new long[] {1_000_000, 2_000_000, 3_000_000, 4_000_000});
        Map<String, long[]> rank1 = Map.of("1 allreduce", new long[] {-2_000_000, -1_000_002, -5, 1_500_000});
        ClockAlignment.Shift s = ClockAlignment.shifts(Map.of(0, rank0, 1, rank1)).get(1);
        assertEquals(3, s.matched());
        assertEquals(4, s.kernels());
        // differences 3,000,000, 3,000,002 and 3,000,005: the median
        assertEquals(3_000_002, s.nanos());
        assertEquals(3, s.spreadNanos());
        assertEquals(0, ClockAlignment.shifts(Map.of(0, rank0, 1, rank1)).get(0).nanos());
    }

    @Test
    public void oneCoincidenceOrNoCommonGroupLeavesARankAsItIs() {
        // an emulated device's collectives end milliseconds apart, in no common pattern: one falls within 20 us
        Map<String, long[]> rank0 = Map.of("1 a", new long[] {1_000_000}, "2 b", new long[] {5_000_000},
                "3 c", new long[] {9_000_000});
        Map<String, long[]> rank1 = Map.of("1 a", new long[] {1_010_000}, "2 b", new long[] {4_200_000},
                "3 c", new long[] {11_000_000});
        ClockAlignment.Shift s = ClockAlignment.shifts(Map.of(0, rank0, 1, rank1)).get(1);
        assertEquals(0, s.matched());
        assertEquals(0, s.nanos());
        ClockAlignment.Shift none = ClockAlignment.shifts(Map.of(0, rank0, 2, Map.of("9 z", new long[] {7}))).get(2);
        assertEquals(0, none.matched());
        assertEquals(1, none.kernels());
    }
}
