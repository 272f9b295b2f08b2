package dev.vantage.device.spyre.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.Set;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;

import org.junit.Rule;
import org.junit.Test;

import dev.vantage.device.kit.DriverSession;
import dev.vantage.device.spyre.driver.SpyreTracingUnavailableException;
import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.spi.ActivitySession;
import dev.vantage.profiler.spi.DeviceActivities;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.KernelCall;
import dev.vantage.tensor.spi.KernelOps;
import dev.vantage.tensor.spi.Storage;

/** The tracing library loads at the first profile that asks for Spyre activity, and its absence is not fatal. */
public class TracingLibraryTest {

    private EmulatedSpyreDriver driver;

    @Rule
    public final TestSupport.Drivers drivers = new TestSupport.Drivers();

    private void zero(Storage s) {
        Tensor t = Tensor.wrap(s, s.size());
        driver.memsetAsync(0, 0, new KernelCall(KernelOps.ZERO_, new Tensor[] {t}, new Tensor[] {t}, null, null));
        driver.synchronizeDevice(0, Long.MAX_VALUE);
    }

    @Test
    public void theLibraryLoadsAtTheFirstConfigureThatAsksForSpyre() {
        driver = drivers.open(Map.of("capacity.mib", "64"));
        SpyreActivitySource source = new SpyreActivitySource(driver);
        assertFalse("loaded when the driver was created", driver.tracingLoaded());
        zero(driver.malloc(0, DType.FLOAT32, 32));
        driver.pushExternalCorrelation(3);
        driver.popExternalCorrelation();
        assertEquals(List.of(), driver.flushActivity());
        assertFalse("loaded by device use", driver.tracingLoaded());
        assertNull(source.configure(Set.of(Activity.CPU, Activity.NPU), Map.of()));
        assertFalse("loaded for a profile that does not record SPYRE", driver.tracingLoaded());
        ActivitySession session = source.configure(Set.of(Activity.CPU, Activity.SPYRE), Map.of());
        assertNotNull(session);
        assertTrue(driver.tracingLoaded());
        assertTrue(session instanceof DriverSession);
        assertTrue(driver.tracing().description(), driver.tracing().description().startsWith("libaiupti"));
    }

    @Test
    public void withoutTheLibraryAProfileGoesOnWithCpuEventsOnlyAndSaysWhy() {
        try (TestSupport.Log log = new TestSupport.Log()) {
            driver = drivers.open(Map.of("capacity.mib", "64", "tracing.library", "absent"));
            SpyreActivitySource source = new SpyreActivitySource(driver);
            ActivitySession session = source.configure(Set.of(Activity.CPU, Activity.SPYRE), Map.of());
            assertNotNull("an absent library must not fail the profile", session);
            session.start();
            session.pushCorrelation(1);
            zero(driver.malloc(0, DType.FLOAT32, 32));
            session.popCorrelation();
            session.stop();
            DeviceActivities d = session.collect();
            assertEquals(List.of(), d.activities());
            assertEquals(1, d.errors().size());
            String error = d.errors().get(0);
            assertTrue(error, error.startsWith("libaiupti not available: SPYRE device activity not recorded"));
            assertTrue(error, error.contains("CPU-side events only"));
            assertEquals("true", d.metadata().get("emulated"));
            assertEquals(1, d.devices().size());
            assertEquals("spyre", d.devices().get(0).type());
            assertEquals(0, d.droppedRecords());

            assertNotNull(source.configure(Set.of(Activity.SPYRE), Map.of()));
            List<String> warnings = log.messages(Level.WARNING);
            assertEquals("warned once: " + warnings, 1, warnings.size());
            assertEquals(error, warnings.get(0));
        }
        assertFalse(driver.tracingLoaded());
        SpyreTracingUnavailableException e = assertThrows(SpyreTracingUnavailableException.class, driver::tracing);
        assertEquals("libaiupti", e.library());
        assertTrue(e.getMessage(), e.getMessage().contains("tracing.library=absent"));
    }

    @Test
    public void aSessionOpenedDirectlyWithoutTheLibraryFailsNamingIt() {
        driver = drivers.open(Map.of("capacity.mib", "64", "tracing.library", "ABSENT"));
        DriverSession session = new DriverSession(driver, Map.of());
        SpyreTracingUnavailableException e = assertThrows(SpyreTracingUnavailableException.class, session::start);
        assertTrue(e.getMessage(), e.getMessage().startsWith("libaiupti not available"));
    }

    @Test
    public void theLibraryMayBeNamedOnlyPresentOrAbsent() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new EmulatedSpyreDriver(Map.of("tracing.library", "maybe")));
        assertTrue(e.getMessage(), e.getMessage().contains("tracing.library") && e.getMessage().contains("'maybe'"));
    }
}
