package dev.vantage.device.spyre.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.Map;

import org.junit.Test;

/** Settings come from the component, else the system properties, else the defaults; bad values are named. */
public class SpyreSettingsTest {

    @Test
    public void defaults() {
        SpyreSettings s = SpyreSettings.of(Map.of());
        assertEquals(1, s.devices());
        assertEquals(4, s.streams());
        assertEquals(98_304L << 20, s.capacityBytes());
        assertTrue(s.tracingPresent());
    }

    @Test
    public void aSystemPropertyServesWhenTheComponentIsSilent() {
        System.setProperty("vantage.spyre.streams", "6");
        try {
            assertEquals(6, SpyreSettings.of(Map.of()).streams());
            assertEquals(2, SpyreSettings.of(Map.of("streams", 2)).streams());
        } finally {
            System.clearProperty("vantage.spyre.streams");
        }
    }

    @Test
    public void malformedValuesAreNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SpyreSettings.of(Map.of("devices", "0")));
        assertEquals("spyre setting devices must be a positive integer, not '0'", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> SpyreSettings.of(Map.of("capacity.mib", "lots")));
        assertTrue(e.getMessage(), e.getMessage().contains("capacity.mib") && e.getMessage().contains("'lots'"));
    }
}
