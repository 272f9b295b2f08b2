package dev.vantage.device.cpu.internal;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

/** Cody's approximations against the series and continued-fraction references, relative to the value. */
public class ErfTest {

    @Test
    public void erfMatchesItsSeriesToNearDoublePrecision() {
        for (double x = -2; x <= 2; x += 0.0131) {
            double expected = ReferenceMath.erfSeries(x);
            assertEquals("erf(" + x + ")", expected, Erf.erf(x), 1e-14 * Math.abs(expected) + 1e-300);
        }
    }

    @Test
    public void erfcKeepsItsRelativeAccuracyFarIntoTheTail() {
        for (double x = 2; x <= 26; x += 0.173) {
            double expected = ReferenceMath.erfcFraction(x);
            assertEquals("erfc(" + x + ")", expected, Erf.erfc(x), 1e-12 * expected);
        }
        assertEquals(2 - ReferenceMath.erfcFraction(5), Erf.erfc(-5), 1e-15);
        assertEquals(0.0, Erf.erfc(30), 0);
    }

    @Test
    public void normalCdfIsAccurateInTheLowerTailWhereGeluNeedsIt() {
        // Phi(-6) = 9.8659e-10: 1 + erf(x) would keep no digits of it in float
        double expected = 0.5 * ReferenceMath.erfcFraction(6 / Math.sqrt(2));
        assertEquals(expected, Erf.normalCdf(-6), 1e-13 * expected);
        assertEquals(0.5, Erf.normalCdf(0), 1e-16);
        assertEquals(Math.exp(-0.5) / Math.sqrt(2 * Math.PI), Erf.normalPdf(1), 1e-16);
    }
}
