package dev.vantage.device.kit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

import dev.vantage.device.kit.emulation.EmulatedClock;

/** Calibration recovers a device clock's offset and drift from two samples. */
public class ClockCalibrationTest {

    @Test
    public void aLineThroughTwoSamplesCancelsOffsetAndDrift() {
        // a clock at 50 MHz, 400 ppm fast, starting at 10^12 ticks: known exactly, no host reads involved
        long f = 50_000_000;
        double rate = f / 1e9 * (1 + 400e-6);
        long host0 = 1_000_000_000L;
        long ticks0 = 1_000_000_000_000L;
        long host1 = host0 + 2_000_000_000L;
        long ticks1 = ticks0 + Math.round((host1 - host0) * rate);
        ClockCalibration c = ClockCalibration.fit(new ClockCalibration.Sample(host0, ticks0, 0),
                new ClockCalibration.Sample(host1, ticks1, 0), f);
        for (long dt : new long[] {0, 1_000_000, 777_777_777, 2_000_000_000L}) {
            long ticks = ticks0 + Math.round(dt * rate);
            assertEquals("at +" + dt + " ns", host0 + dt, c.toHostNanos(ticks), 21);
        }
        // the nominal rate alone would be 400 ppm off after 2 s: 800 us
        ClockCalibration nominal = ClockCalibration.fit(new ClockCalibration.Sample(host0, ticks0, 0), null, f);
        assertEquals(800_000, nominal.toHostNanos(ticks1) - host1, 25);
        assertEquals(20, c.errorBoundNanos());
    }

    @Test
    public void shortWindowsUseTheNominalRate() {
        ClockCalibration c = ClockCalibration.fit(new ClockCalibration.Sample(0, 0, 5),
                new ClockCalibration.Sample(500_000, 1, 7), 1_000_000_000);
        assertEquals(1.0, c.nanosPerTick(), 0);
        assertEquals(8, c.errorBoundNanos());
    }

    @Test
    public void calibratesARealDriftingClockWithinItsBound() {
        EmulatedClock clock = new EmulatedClock(100_000_000, 35, 123_456_789_000L);
        ClockCalibration.Sample start = ClockCalibration.sample(clock::now);
        long spin = System.nanoTime() + 3_000_000;
        while (System.nanoTime() < spin) {
            Thread.onSpinWait();
        }
        ClockCalibration c = ClockCalibration.fit(start, ClockCalibration.sample(clock::now), clock.frequency());
        for (int i = 0; i < 100; i++) {
            long before = System.nanoTime();
            long ticks = clock.now();
            long after = System.nanoTime();
            long host = c.toHostNanos(ticks);
            assertTrue(host + " in [" + before + ", " + after + "] +- " + c.errorBoundNanos(),
                    host >= before - c.errorBoundNanos() && host <= after + c.errorBoundNanos());
        }
    }

    @Test
    public void refusesANonPositiveFrequency() {
        assertThrows(IllegalArgumentException.class,
                () -> ClockCalibration.fit(new ClockCalibration.Sample(0, 0, 0), null, 0));
    }
}
