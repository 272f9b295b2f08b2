package dev.vantage.verbs.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.util.List;

import org.junit.Test;

import dev.vantage.cli.UsageException;
import dev.vantage.profiler.api.CaptureRequest;

/** The Gogo shell's profiler:start flags, and what the commands say when the profiler core is away. */
public class ProfilerCommandsTest {

    @Test
    public void durationsAreWrittenAsUsersWriteThem() throws Exception {
        assertEquals(500, ProfilerCommands.request(List.of("--duration", "500ms")).durationMillis());
        assertEquals(1500, ProfilerCommands.request(List.of("--duration", "1.5s")).durationMillis());
        assertEquals(60_000, ProfilerCommands.request(List.of("--duration", "1m")).durationMillis());
        assertEquals("profiler:start: Invalid value for option '--duration': '10' is not a time such as 500ms, 2s,"
                + " 1.5s or 1m", new ProfilerCommands().start("--duration", "10"));
    }

    @Test
    public void startsFlagsBecomeAShellRequest() throws Exception {
        CaptureRequest r = ProfilerCommands.request(List.of("--iterations", "5", "--activities", "CPU", "NPU",
                "--export", "chrome", "csv", "--dir", "/tmp/t", "--name", "n"));
        assertEquals(5, r.iterations());
        assertEquals(2, r.activities().size());
        assertEquals(List.of("chrome", "csv"), r.exports());
        assertEquals(Path.of("/tmp/t"), r.dir());
        assertEquals("shell", r.trigger());
        assertTrue(r.requestedBy(), r.requestedBy().startsWith("the Gogo shell (user "));
        assertThrows(UsageException.class, () -> ProfilerCommands.request(List.of("--iterations", "0")));
        assertThrows(UsageException.class, () -> ProfilerCommands.request(List.of("--bogus")));
    }

    @Test
    public void bundleIdsAreFelixsNotTheProfilers() {
        assertTrue(ProfilerCommands.bundleArguments(new String[] {"0"}));
        assertTrue(ProfilerCommands.bundleArguments(new String[] {"-t", "12"}));
        assertTrue(!ProfilerCommands.bundleArguments(new String[] {"--duration", "2s"}));
        assertTrue(!ProfilerCommands.bundleArguments(new String[0]));
    }

    @Test
    public void withoutTheProfilerCoreEachCommandSaysSoInOneLine() throws Exception {
        ProfilerCommands commands = new ProfilerCommands();
        assertEquals("profiler:start: the profiler core is not running", commands.start("--duration", "1s"));
        assertEquals("profiler:status: the profiler core is not running", commands.status());
        assertEquals("profiler:stop: the profiler core is not running", commands.stop());
        assertEquals("profiler:table: the profiler core is not running", commands.table());
    }
}
