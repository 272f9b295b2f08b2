package dev.vantage.shell.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.util.List;

import org.junit.Test;

import dev.vantage.profiler.api.CaptureRequest;

/** The Gogo shell's profiler:start flags, and what the commands say when the profiler core is away. */
public class ProfilerCommandsTest {

    @Test
    public void durationsAreWrittenAsUsersWriteThem() {
        assertEquals(500, ProfilerCommands.millis("500ms"));
        assertEquals(2000, ProfilerCommands.millis("2s"));
        assertEquals(1500, ProfilerCommands.millis("1.5s"));
        assertEquals(60_000, ProfilerCommands.millis("1m"));
        assertEquals("--duration must be such as 500ms, 2s or 1m, not '10'",
                assertThrows(IllegalArgumentException.class, () -> ProfilerCommands.millis("10")).getMessage());
    }

    @Test
    public void startsFlagsBecomeAShellRequest() {
        CaptureRequest r = ProfilerCommands.request(List.of("--iterations", "5", "--activities", "CPU", "NPU",
                "--export", "chrome", "csv", "--dir", "/tmp/t", "--name", "n"));
        assertEquals(5, r.iterations());
        assertEquals(2, r.activities().size());
        assertEquals(List.of("chrome", "csv"), r.exports());
        assertEquals(Path.of("/tmp/t"), r.dir());
        assertEquals("shell", r.trigger());
        assertTrue(r.requestedBy(), r.requestedBy().startsWith("the Gogo shell (user "));
        assertThrows(IllegalArgumentException.class, () -> ProfilerCommands.request(List.of("--iterations", "0")));
        assertThrows(IllegalArgumentException.class, () -> ProfilerCommands.request(List.of("--bogus")));
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
