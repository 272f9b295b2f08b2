package dev.vantage.device.contract;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;

import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.spi.ActivitySession;
import dev.vantage.profiler.spi.DeviceActivities;
import dev.vantage.profiler.spi.DeviceActivity;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.TraceDevice;

/**
 * The session rules every {@link dev.vantage.profiler.spi.DeviceActivitySource} keeps, on Kineto's terms, whether
 * or not its device is a tensor backend (ONNX Runtime's {@code ort} is not; an accelerator's is): it declines a
 * profile that does not ask for its activity; it links every piece of device work to the host op whose correlation
 * was open when the work was launched, never shows work starting before that op, and keeps both ends of every
 * flow; it keeps nothing launched outside its window; it names its device and says whether it is emulated; its
 * memory reports, if any, are instants with Kineto's keys. A subclass gives the source and a way to launch device
 * work ({@link #create()}); {@link DeviceContract} checks the rest of a tensor device.
 */
public abstract class ActivitySourceContract {

    /** The most a device's time may be off the host clock and still count as after its op's start. */
    public static final long MAX_CLOCK_ERROR_NANOS = DeviceContract.MAX_CLOCK_ERROR_NANOS;

    /** Does device work on the calling thread, as a host op of the runtime would launch it. */
    @FunctionalInterface
    public interface Launcher {
        /** Launches work and returns once it is done (or the device has it). */
        void launch() throws Exception;
    }

    /**
     * A source under test.
     *
     * @param source the source, as Declarative Services would give it
     * @param launcher makes device work that the source records while a session of it runs
     * @param close releases what the fixture holds
     */
    public record ActivityFixture(dev.vantage.profiler.spi.DeviceActivitySource source, Launcher launcher,
            AutoCloseable close) {
    }

    private ActivityFixture fixture;

    /** Builds the fixture; called before every test. */
    protected abstract ActivityFixture create() throws Exception;

    @Before
    public void setUpFixture() throws Exception {
        fixture = create();
    }

    @After
    public void closeFixture() throws Exception {
        if (fixture != null) {
            fixture.close().close();
        }
    }

    private Activity activity() {
        return fixture.source().activity();
    }

    @Test
    public void declinesAProfileThatDoesNotAskForItsActivity() {
        assertNull(fixture.source().configure(Set.of(Activity.CPU), Map.of()));
        assertFalse("a device's activity is not CPU", activity().equals(Activity.CPU));
        assertFalse(fixture.source().deviceType().isEmpty());
    }

    /** Runs two host ops, 41 and 42, each launching work; returns what the session handed over. */
    private DeviceActivities twoOps(Set<Activity> activities, long[] opStarts) throws Exception {
        ActivitySession session = fixture.source().configure(activities, Map.of("record_shapes", "1"));
        assertNotNull("a profile asking for " + activity() + " gets a session", session);
        session.start();
        for (int op = 0; op < 2; op++) {
            session.pushCorrelation(41 + op);
            opStarts[op] = System.nanoTime();
            fixture.launcher().launch();
            session.popCorrelation();
        }
        session.stop();
        return session.collect();
    }

    @Test
    public void linksEveryPieceOfDeviceWorkToTheOpThatLaunchedItAndNeverBeforeIt() throws Exception {
        long[] opStarts = new long[2];
        DeviceActivities d = twoOps(Set.of(Activity.CPU, activity()), opStarts);
        Set<Long> ops = new HashSet<>();
        Set<Long> launches = new HashSet<>();
        Set<Long> workFlows = new HashSet<>();
        for (DeviceActivity a : d.activities()) {
            if (a.kind() == EventKind.RUNTIME) {
                assertEquals("a launch runs on the launching thread", Thread.currentThread().getId(),
                        a.launchThreadId());
                if (a.flowId() >= 0) {
                    launches.add(a.flowId());
                }
            }
            if (!a.kind().isDeviceWork()) {
                continue;
            }
            assertTrue(a.name() + " belongs to op 41 or 42, not " + a.correlationId(),
                    a.correlationId() == 41 || a.correlationId() == 42);
            long opStart = opStarts[(int) (a.correlationId() - 41)];
            assertTrue(a.name() + " starts " + (opStart - a.startNanos()) + " ns before its op",
                    a.startNanos() >= opStart - MAX_CLOCK_ERROR_NANOS);
            assertEquals(Thread.currentThread().getId(), a.launchThreadId());
            ops.add(a.correlationId());
            if (a.flowId() >= 0) {
                workFlows.add(a.flowId());
            }
        }
        assertEquals("work of both ops", Set.of(41L, 42L), ops);
        assertEquals("every flow has both ends: a launch and the work it launched", launches, workFlows);
        assertEquals(0, d.droppedRecords());
        assertFalse(d.devices().isEmpty());
        TraceDevice device = d.devices().get(0);
        assertEquals(fixture.source().deviceType(), device.type());
        assertEquals("the metadata says whether the device is emulated", Boolean.toString(device.emulated()),
                d.metadata().get("emulated"));
    }

    @Test
    public void keepsNothingLaunchedOutsideItsWindow() throws Exception {
        ActivitySession session = fixture.source().configure(Set.of(Activity.CPU, activity()), Map.of());
        assertNotNull(session);
        session.pushCorrelation(7);
        fixture.launcher().launch();
        session.popCorrelation();
        session.start();
        session.pushCorrelation(8);
        fixture.launcher().launch();
        session.popCorrelation();
        session.stop();
        session.pushCorrelation(9);
        fixture.launcher().launch();
        session.popCorrelation();
        List<DeviceActivity> work = session.collect().activities().stream().filter(a -> a.kind().isDeviceWork())
                .toList();
        assertFalse(work.isEmpty());
        for (DeviceActivity a : work) {
            assertEquals(a.name() + " was launched outside the window", 8, a.correlationId());
        }
    }

    @Test
    public void memoryReportsAreInstantsWithKinetosKeys() throws Exception {
        DeviceActivities d = twoOps(Set.of(Activity.CPU, Activity.MEM, activity()), new long[2]);
        for (DeviceActivity a : d.activities()) {
            if (a.kind() != EventKind.MEMORY) {
                continue;
            }
            assertEquals("a memory report is an instant", a.startNanos(), a.endNanos());
            // its figures are numbers, not text the core would parse back
            assertNotNull("a memory report has figures", a.memory());
            assertTrue("Total Allocated is not negative", a.memory().totalAllocated() >= 0);
            assertTrue("Total Reserved is not negative", a.memory().totalReserved() >= 0);
            assertTrue(a.correlationId() == 41 || a.correlationId() == 42);
        }
    }
}
