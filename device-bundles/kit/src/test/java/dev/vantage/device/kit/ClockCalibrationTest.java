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
        // 35 ppm off its nominal 100 MHz: over the 20 ms window the nominal rate alone would be 700 ns off at the
        // end, so a fit that missed the drift fails below
        EmulatedClock clock = new EmulatedClock(100_000_000, 35, 123_456_789_000L);
        ClockCalibration.Sample start = ClockCalibration.sample(clock::now);
        int probes = 200;
        long[][] reads = new long[probes][];
        long end = System.nanoTime() + 20_000_000;
        for (int i = 0; i < probes; i++) {
            // spread over the window, between the samples, where the bound holds
            long until = start.hostNanos() + (end - start.hostNanos()) * (i + 1) / (probes + 1);
            while (System.nanoTime() < until) {
                Thread.onSpinWait();
            }
            long before = System.nanoTime();
            long ticks = clock.now();
            long after = System.nanoTime();
            reads[i] = new long[] {before, ticks, after};
        }
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
        ClockCalibration c = ClockCalibration.fit(start, ClockCalibration.sample(clock::now), clock.frequency());
        long bound = c.errorBoundNanos();
        int within = 0;
        for (long[] r : reads) {
            long host = c.toHostNanos(r[1]);
            if (host >= r[0] - bound && host <= r[2] + bound) {
                within++;
            }
            // a virtual machine's threads move between CPUs whose clocks differ by some tens of ns, and a build
            // on two cores preempts: single reads may miss by that much, never by the drift
            assertTrue(host + " in [" + r[0] + ", " + r[2] + "] +- " + bound + " + 300",
                    host >= r[0] - bound - 300 && host <= r[2] + bound + 300);
        }
        assertTrue(within + " of " + probes + " reads within the bound of " + bound + " ns", within >= probes * 9 / 10);
    }

    @Test
    public void refusesANonPositiveFrequency() {
        assertThrows(IllegalArgumentException.class,
                () -> ClockCalibration.fit(new ClockCalibration.Sample(0, 0, 0), null, 0));
    }
}
