package dev.vantage.profiler.trace;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class TraceTimeTest {

    @Test
    public void microsecondsHaveThreeDecimalsAndKeepTheSign() {
        assertEquals("0.000", TraceTime.micros(0));
        assertEquals("0.001", TraceTime.micros(1));
        assertEquals("0.010", TraceTime.micros(10));
        assertEquals("12.345", TraceTime.micros(12_345));
        assertEquals("-0.005", TraceTime.micros(-5));
        assertEquals("-1234.567", TraceTime.micros(-1_234_567));
        assertEquals("4458676522690.655", TraceTime.micros(4_458_676_522_690_655L));
        assertEquals("9223372036854775.807", TraceTime.micros(Long.MAX_VALUE));
        assertEquals("-9223372036854775.808", TraceTime.micros(Long.MIN_VALUE));
    }

    @Test
    public void writingIntoABufferGivesTheSameText() {
        char[] b = new char[TraceTime.MAX_CHARS];
        for (long v : new long[] {0, 7, -7, 999, 1000, -1001, 123_456_789, Long.MIN_VALUE, Long.MAX_VALUE}) {
            int start = TraceTime.micros(v, b);
            assertEquals(TraceTime.micros(v), new String(b, start, b.length - start));
            // the text agrees with exact decimal arithmetic
            assertEquals(new java.math.BigDecimal(v).movePointLeft(3).toPlainString(), TraceTime.micros(v));
        }
    }

    @Test
    public void tableUnitsFollowTheMagnitude() {
        assertEquals("999.000us", TraceTime.human(999_000));
        assertEquals("1.000ms", TraceTime.human(1_000_000));
        assertEquals("1.500s", TraceTime.human(1_500_000_000));
        assertEquals("0.012us", TraceTime.human(12));
        assertEquals("-1.000ms", TraceTime.human(-1_000_000));
    }
}
