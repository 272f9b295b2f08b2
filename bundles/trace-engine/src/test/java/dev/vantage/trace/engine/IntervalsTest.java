package dev.vantage.trace.engine;

import static org.junit.Assert.assertArrayEquals;

import java.util.Random;

import org.junit.Test;

/** A step's nested unions against a count of the covered nanoseconds, one by one. */
public class IntervalsTest {

    @Test
    public void cumulativeUnionsCountEveryCoveredNanosecondOnce() {
        Random random = new Random(34);
        for (int round = 0; round < 300; round++) {
            int lists = 1 + random.nextInt(6);
            LongList[] given = new LongList[lists];
            boolean[][] covered = new boolean[lists][200];
            for (int j = 0; j < lists; j++) {
                given[j] = new LongList();
                for (int n = random.nextInt(8); n > 0; n--) {
                    long from = random.nextInt(190);
                    long to = from + random.nextInt(10);
                    given[j].add(from);
                    given[j].add(to);
                    for (long t = from; t < to; t++) {
                        for (int k = j; k < lists; k++) {
                            covered[k][(int) t] = true;
                        }
                    }
                }
            }
            long[] expected = new long[lists];
            for (int k = 0; k < lists; k++) {
                for (boolean c : covered[k]) {
                    expected[k] += c ? 1 : 0;
                }
            }
            assertArrayEquals("round " + round, expected, Intervals.cumulativeUnions(given));
        }
    }

    @Test
    public void noIntervalsIsNoTime() {
        assertArrayEquals(new long[3], Intervals.cumulativeUnions(new LongList(), new LongList(), new LongList()));
    }
}
