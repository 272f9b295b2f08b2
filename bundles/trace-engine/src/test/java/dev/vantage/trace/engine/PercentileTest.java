package dev.vantage.trace.engine;

import static org.junit.Assert.assertEquals;

import java.util.Arrays;
import java.util.Random;

import org.HdrHistogram.Histogram;
import org.junit.Test;

/**
 * A key seen less often than a histogram is worth gets its percentiles from its sorted durations: they must be the
 * figures a three-digit HdrHistogram filled with the same durations reads, as the table showed before.
 */
public class PercentileTest {

    @Test
    public void sortedDurationsGiveTheHistogramsPercentiles() {
        Random random = new Random(99);
        int[] sizes = {1, 2, 3, 7, 99, 100, 101, 199, 200, 1000, 8192};
        for (int n : sizes) {
            for (int round = 0; round < 20; round++) {
                long[] values = new long[n];
                Histogram h = new Histogram(3);
                for (int i = 0; i < n; i++) {
                    // from nanoseconds to minutes, and repeats
                    values[i] = round % 4 == 0 ? random.nextInt(3) * 1_000L
                            : (long) Math.pow(10, random.nextDouble() * 11);
                    h.recordValue(values[i]);
                }
                Arrays.sort(values);
                for (double p : new double[] {50, 99, 90, 100, 0.5}) {
                    assertEquals(n + " values, p" + p, h.getValueAtPercentile(p),
                            KeyAveragesImpl.percentile(values, n, p));
                }
            }
        }
    }
}
