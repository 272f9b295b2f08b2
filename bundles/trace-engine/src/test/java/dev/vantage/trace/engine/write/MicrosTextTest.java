package dev.vantage.trace.engine.write;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;

import org.junit.Test;

/** Kineto's microsecond times, written from nanoseconds without floating point. */
public class MicrosTextTest {

    @Test
    public void microsecondsHaveThreeDecimals() {
        assertEquals("0.000", MicrosText.of(0));
        assertEquals("-0.005", MicrosText.of(-5));
        assertEquals("0.001", MicrosText.of(1));
        assertEquals("0.010", MicrosText.of(10));
        assertEquals("12.345", MicrosText.of(12_345));
        assertEquals("4458676522690.655", MicrosText.of(4_458_676_522_690_655L));
        assertEquals("9223372036854775.807", MicrosText.of(Long.MAX_VALUE));
        assertFalse(MicrosText.of(100).contains("e"));
    }
}
