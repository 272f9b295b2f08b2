package dev.vantage.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.Test;

/** The agent's key=value options: every value checked by the command line's converters, refusals in one line. */
public class AgentOptionsTest {

    private static AgentOptions parse(String text) throws UsageException {
        return AgentOptions.parse(text, Map.of());
    }

    private static String refusal(String text) {
        return assertThrows(UsageException.class, () -> parse(text)).getMessage();
    }

    @Test
    public void noOptionsIsAnOnDemandAgentWithRunsDefaults() throws Exception {
        for (String none : new String[] {null, "", "  "}) {
            AgentOptions o = parse(none);
            assertEquals(AgentOptions.Start.ONDEMAND, o.start());
            assertEquals(List.of("chrome"), o.exports());
            assertTrue(o.recordShapes());
            assertFalse(o.scheduleGiven());
            assertEquals(Map.of("wait", 0, "warmup", 1, "active", 3, "repeat", 1, "skip_first", 0), o.schedule());
            assertEquals(Path.of("vantage_profiles").toAbsolutePath(), o.dir());
            assertEquals(List.of(), o.steps());
            assertNull(o.deployDir());
        }
    }

    @Test
    public void theIssuesExampleAndEveryRunFlagWithoutItsPrefix() throws Exception {
        AgentOptions o = parse("start=startup,profile-dir=/tmp/p,active=20");
        assertEquals(AgentOptions.Start.STARTUP, o.start());
        assertEquals(Path.of("/tmp/p"), o.dir());
        assertEquals(20, (int) o.schedule().get("active"));
        assertTrue(o.scheduleGiven());
        o = parse("start=startup, dir=traces, name=embed-run, activities=CPU+ORT+MEM, export=chrome+csv,"
                + " record-shapes=false, with-stack, with-flops=true, wait=1, warmup=0, repeat=2, skip-first=3,"
                + " sort-by=self_cpu_time_total, row-limit=-1, percentiles, max-events=1000, duration=1.5s,"
                + " step=com.acme.Api#handle+com.acme.Batch#run, deploy-dir=/tmp/d");
        assertEquals(Path.of("traces").toAbsolutePath(), o.dir());
        assertEquals("embed-run", o.name());
        assertEquals(List.of("CPU", "ORT", "MEM"), o.activities());
        assertEquals(List.of("chrome", "csv"), o.exports());
        assertFalse(o.recordShapes());
        assertTrue(o.withStack());
        assertTrue(o.withFlops());
        assertEquals(Map.of("wait", 1, "warmup", 0, "active", 3, "repeat", 2, "skip_first", 3), o.schedule());
        assertEquals("self_cpu_time_total", o.sortBy());
        assertEquals(-1, o.rowLimit());
        assertTrue(o.percentiles());
        assertEquals(1000, (int) o.maxEvents());
        assertEquals(1500, o.durationMillis());
        assertEquals("[com.acme.Api#handle, com.acme.Batch#run]", o.steps().toString());
        assertEquals("com.acme.Batch", o.steps().get(1).className());
        assertEquals(Path.of("/tmp/d"), o.deployDir());
        // the profile-* spelling of any key
        assertEquals(2, (int) parse("start=startup,profile-active=2").schedule().get("active"));
    }

    @Test
    public void theEnvironmentsProfileDirectoryStandsInForDir() throws Exception {
        assertEquals(Path.of("/srv/traces"),
                AgentOptions.parse("start=startup", Map.of("VANTAGE_PROFILER_DIR", "/srv/traces")).dir());
    }

    @Test
    public void aMisspelledKeyIsRefusedInOneLineWithTheKeyItResembles() {
        String message = refusal("strat=startup");
        assertTrue(message, message.startsWith("unknown option 'strat' (did you mean 'start'?); known: start, step,"));
        assertFalse(message.contains("\n"));
        assertEquals("unknown option 'bogus'; known: " + String.join(", ", AgentOptions.KEYS), refusal("bogus=1"));
    }

    @Test
    public void badValuesAreRefusedNamingKeyAndValue() {
        assertEquals("start=later: 'later' is not ondemand or startup", refusal("start=later"));
        assertEquals("active=0: '0' is out of range (1 or more)", refusal("start=startup,active=0"));
        assertEquals("wait=x: 'x' is not a whole number (0 or more)", refusal("start=startup,wait=x"));
        assertEquals("duration=5: '5' is not a time such as 500ms, 2s, 1.5s or 1m",
                refusal("start=startup,duration=5"));
        assertEquals("name=a/b: 'a/b' is not a plain file name (no '/', '\\' or '..')",
                refusal("start=startup,name=a/b"));
        assertEquals("with-stack=yes: 'yes' is not true or false", refusal("start=startup,with-stack=yes"));
        assertEquals("activities=CPU++ORT: an empty item; a list is separated by '+', such as activities=CPU+ORT",
                refusal("start=startup,activities=CPU++ORT"));
        assertEquals("step=handle: 'handle' is not class#method, such as com.acme.Api#handle", refusal("step=handle"));
        assertEquals("step=com.acme.Api#: 'com.acme.Api#' is not class#method, such as com.acme.Api#handle",
                refusal("step=com.acme.Api#"));
        assertEquals("option 'active' needs a value: active=...", refusal("start=startup,active"));
        assertEquals("option 'dir' is given twice", refusal("start=startup,dir=/a,profile-dir=/b"));
        assertTrue(refusal("start=startup,,active=2").startsWith("an empty option in"));
    }

    @Test
    public void keysOfACaptureAtStartUpAreRefusedOnDemand() {
        assertEquals("active=20 needs start=startup (an on-demand capture takes its window and formats from"
                + " 'vantage profile <pid> start')", refusal("active=20"));
        assertTrue(refusal("start=ondemand,export=csv").startsWith("export=csv needs start=startup"));
    }
}
