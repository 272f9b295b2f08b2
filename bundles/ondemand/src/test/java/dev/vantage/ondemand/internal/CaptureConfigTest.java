package dev.vantage.ondemand.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.Test;

import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.api.CaptureRequest;

/** On-demand requests from the MBean's options and from configuration files, Vantage's keys and Kineto's. */
public class CaptureConfigTest {

    @Test
    public void theMBeansOptionsBecomeARequest() {
        CaptureRequest r = CaptureConfig.parse(new String[] {"duration=2000", "activities=CPU,NPU",
            "export=chrome, csv", "dir=/tmp/traces", "name=probe", "trigger=attach", "requested_by=pid 7 user ana"},
            "an attached client from 127.0.0.1");
        assertEquals(2000, r.durationMillis());
        assertEquals(0, r.iterations());
        assertEquals(Set.of(Activity.CPU, Activity.parse("NPU")), r.activities());
        assertEquals(List.of("chrome", "csv"), r.exports());
        assertEquals(Path.of("/tmp/traces"), r.dir());
        assertEquals("probe", r.name());
        assertEquals("attach", r.trigger());
        // what the platform saw first, then what the client says of itself, labelled so
        assertEquals("an attached client from 127.0.0.1; the client says: pid 7 user ana", r.requestedBy());
        assertEquals("a caller", CaptureConfig.parse(new String[] {"iterations=2"}, "a caller").requestedBy());
    }

    @Test
    public void kinetosKeysWorkInAConfigurationFile() {
        CaptureRequest r = CaptureConfig.config(Map.of("PROFILE_START_ITERATION", "120", "ACTIVITIES_ITERATIONS",
                "5", "ACTIVITIES_LOG_FILE", "/var/log/trace/run7.pt.trace.json", "service.pid",
                "dev.vantage.profiler.ondemand", "felix.fileinstall.filename", "file:/d/x.cfg",
                "osgi.ds.satisfying.condition.target", "(osgi.condition.id=true)"), "/d/x.cfg");
        assertEquals(5, r.iterations());
        assertEquals(120, r.startIteration());
        assertEquals(Path.of("/var/log/trace"), r.dir());
        assertEquals("run7", r.name());
        assertEquals("config", r.trigger());
        assertEquals("file /d/x.cfg", r.requestedBy());

        CaptureRequest seconds = CaptureConfig.config(Map.of("ACTIVITIES_DURATION_SECS", "3"), "f");
        assertEquals(3000, seconds.durationMillis());
        // Kineto's start iteration alone records one iteration
        assertEquals(1, CaptureConfig.config(Map.of("PROFILE_START_ITERATION", "9"), "f").iterations());
        CaptureRequest empty = CaptureConfig.config(Map.of(), "f");
        assertEquals(0, empty.durationMillis() + empty.iterations());
        assertNull(empty.dir());
    }

    @Test
    public void badOptionsAreRefusedWithTheirName() {
        assertEquals("an option is key=value, not 'duration'", assertThrows(IllegalArgumentException.class,
                () -> CaptureConfig.parse(new String[] {"duration"}, "c")).getMessage());
        assertEquals("iterations must be a whole number from 0 to 2147483647, not 'five'",
                assertThrows(IllegalArgumentException.class,
                        () -> CaptureConfig.parse(new String[] {"iterations=five"}, "c")).getMessage());
        assertEquals("dir must be an absolute path, not 'traces'", assertThrows(IllegalArgumentException.class,
                () -> CaptureConfig.parse(new String[] {"dir=traces"}, "c")).getMessage());
        assertEquals("a capture takes a duration or a number of iterations, not both",
                assertThrows(IllegalArgumentException.class,
                        () -> CaptureConfig.parse(new String[] {"duration=5", "iterations=2"}, "c")).getMessage());
        String unknown = assertThrows(IllegalArgumentException.class,
                () -> CaptureConfig.config(Map.of("ACTIVITIES_WARMUP", "1"), "f")).getMessage();
        assertEquals(true, unknown.startsWith("unknown on-demand option 'ACTIVITIES_WARMUP'; known: duration,"));
    }

    @Test
    public void provenanceComesFromThePlatformNeverFromAConfigurationFile() {
        for (String key : List.of("trigger", "requested_by")) {
            assertEquals(key + " is written by the platform, from where the request came; a configuration file"
                    + " cannot set it", assertThrows(IllegalArgumentException.class,
                    () -> CaptureConfig.config(Map.of("iterations", "1", key, "pid 1 user alice"), "/d/x.cfg"))
                    .getMessage());
        }
        // a JMX client cannot make itself a configuration file, a shell or anything but attach
        assertEquals("trigger is the platform's to write (attach, for a JMX client), not 'config'",
                assertThrows(IllegalArgumentException.class,
                        () -> CaptureConfig.parse(new String[] {"trigger=config"}, "c")).getMessage());
    }

    @Test
    public void numbersBeyondTheirTypeAreRefusedInOneLine() {
        assertEquals("iterations must be a whole number from 0 to 2147483647, not '99999999999'",
                assertThrows(IllegalArgumentException.class,
                        () -> CaptureConfig.config(Map.of("iterations", "99999999999"), "f")).getMessage());
        assertEquals("ACTIVITIES_DURATION_SECS must be a whole number from 0 to 9223372036854775, not"
                + " '9223372036854775807'", assertThrows(IllegalArgumentException.class,
                () -> CaptureConfig.config(Map.of("ACTIVITIES_DURATION_SECS", "9223372036854775807"), "f"))
                .getMessage());
        assertEquals(9223372036854775000L, CaptureConfig.config(Map.of("ACTIVITIES_DURATION_SECS",
                "9223372036854775"), "f").durationMillis());
    }

    @Test
    public void aKeyWithALineBreakInItIsRefusedInOneLine() {
        // found by fuzzing (OnDemandCfgFuzzTest): the bundle logs the refusal, which took two lines
        String message = assertThrows(IllegalArgumentException.class,
                () -> CaptureConfig.config(Map.of("ite\ratimns", "5"), "/d/x.cfg")).getMessage();
        assertTrue(message, message.startsWith("unknown on-demand option 'ite\\ratimns'; known: duration,"));
        assertFalse(message, message.contains("\r") || message.contains("\n"));
    }

    @Test
    public void aKinetoLogFileThatNamesNoFileIsRefused() {
        // found by fuzzing: ACTIVITIES_LOG_FILE=/. is the root, which has no file name (a NullPointerException)
        for (String v : List.of("/", "/.", "/tmp/..", "/tmp/.pt.trace.json")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> CaptureConfig.config(Map.of("ACTIVITIES_LOG_FILE", v), "f"));
            assertEquals("ACTIVITIES_LOG_FILE must name the trace's file, as /var/log/trace/run7.pt.trace.json; '"
                    + v + "' gives no file name", e.getMessage());
        }
    }
}
