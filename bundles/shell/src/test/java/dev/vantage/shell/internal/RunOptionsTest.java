package dev.vantage.shell.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.util.Set;
import java.util.List;
import java.util.Map;

import org.junit.Test;

import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.api.SortKey;

public class RunOptionsTest {

    private static RunOptions parse(String... args) throws UsageException {
        return RunOptions.parse(List.of(args), Map.of());
    }

    private static String error(String... args) {
        return assertThrows(UsageException.class, () -> parse(args)).getMessage();
    }

    @Test
    public void theRanksOfOneLaunchShareTheDefaultName() throws UsageException {
        RunOptions o = RunOptions.parse(List.of("mlp-train", "--profile"), Map.of("VANTAGE_LAUNCH_ID",
                "20261123-154500", "RANK", "2", "WORLD_SIZE", "4"));
        assertEquals("mlp-train-20261123-154500", o.profileName);
        assertEquals("mlp-train-20261123-154500-rank2", o.baseName());
        // anything else is not a launch's id: the run's own time
        RunOptions own = RunOptions.parse(List.of("mlp-train"), Map.of("VANTAGE_LAUNCH_ID", "../x"));
        assertTrue(own.profileName, own.profileName.matches("mlp-train-\\d{8}-\\d{6}"));
    }

    @Test
    public void memoryFlagsTakeSizesAsUsersWriteThem() throws UsageException {
        assertEquals(256L << 20, (long) parse("m", "--device-memory", "256m").deviceMemory);
        assertEquals(3L << 29, (long) parse("m", "--device-memory", "1.5G").deviceMemory);
        assertEquals(512L << 10, (long) parse("m", "--device-memory", "512KiB").deviceMemory);
        assertEquals(4096L, (long) parse("m", "--device-memory", "4096").deviceMemory);
        assertEquals(2L << 40, (long) parse("m", "--device-memory", "2tb").deviceMemory);
        assertEquals("--device-memory must be a size such as 256m or 2g, not '12x'", error("m", "--device-memory",
                "12x"));
        assertEquals("--device-memory must be at least one byte and less than 8 EiB, not '0'",
                error("m", "--device-memory", "0"));
        RunOptions o = parse("m", "--memory-snapshot", "/tmp/s.pickle", "--track-memory");
        assertEquals(Path.of("/tmp/s.pickle"), o.memorySnapshot);
        assertTrue(o.trackMemory);
    }

    @Test
    public void defaults() throws UsageException {
        RunOptions o = parse("matmul");
        assertEquals("matmul", o.workload);
        assertEquals(10, o.steps);
        assertEquals("cpu", o.device);
        assertEquals(Path.of("vantage_profiles").toAbsolutePath(), o.profileDir);
        assertEquals(List.of("chrome"), o.exports);
        assertEquals("the run decides, by the device it profiles", null, o.sortBy);
        assertTrue(o.baseName(), o.baseName().matches("matmul-\\d{8}-\\d{6}"));
    }

    @Test
    public void cacheDitDefaults() throws UsageException {
        RunOptions o = parse("mlp-train", "--profile");
        assertEquals("the run decides: CPU and its device's activity", null, o.activities);
        assertTrue(o.recordShapes);
        // torch.profiler.schedule(wait=0, warmup=1, active=3, repeat=1): steps 1 to 3 of a run are recorded
        List<String> actions = new java.util.ArrayList<>();
        for (int step = 0; step < 6; step++) {
            actions.add(o.schedule().action(step).name());
        }
        assertEquals(List.of("WARMUP", "RECORD", "RECORD", "RECORD_AND_SAVE", "NONE", "NONE"), actions);
        assertTrue("one cycle: no -cycle suffix", !o.manyCycles());

        assertTrue(parse("m", "--profile", "--profile-record-shapes").recordShapes);
        assertTrue(!parse("m", "--profile", "--profile-record-shapes=false").recordShapes);
        RunOptions gpu = parse("m", "--profile", "--profile-activities", "CPU", "GPU");
        assertTrue(gpu.deviceActivity);
        assertEquals(Set.of(Activity.CPU), gpu.activities);
        RunOptions custom = parse("m", "--profile", "--profile-warmup", "0", "--profile-active", "5");
        assertEquals("RECORD", custom.schedule().action(0).name());
    }

    @Test
    public void profileFlagsAndRankNaming() throws UsageException {
        RunOptions o = parse("matmul", "--profile", "--profile-dir", "/tmp/x", "--profile-activities", "cpu",
                "--profile-export", "chrome", "csv", "--profile-name", "exp1", "--rank", "3", "--world-size", "4",
                "--steps", "6", "--profile-sort-by", "count", "--profile-row-limit", "-1");
        assertEquals(Path.of("/tmp/x"), o.profileDir);
        assertEquals(Set.of(Activity.CPU), o.activities);
        assertEquals(List.of("chrome", "csv"), o.exports);
        assertEquals("exp1-rank3", o.baseName());
        assertEquals(6, o.steps);
        assertEquals(SortKey.COUNT, o.sortBy);
        assertEquals(-1, o.rowLimit);
    }

    @Test
    public void profileDirComesFromTheEnvironmentWhenNotGiven() throws UsageException {
        RunOptions o = RunOptions.parse(List.of("matmul", "--profile"), Map.of("VANTAGE_PROFILER_DIR", "/data/p"));
        assertEquals(Path.of("/data/p"), o.profileDir);
    }

    @Test
    public void badInputIsNamed() {
        assertEquals("'run' needs a workload name; see 'vantage run --help'", error("--steps", "3"));
        assertEquals("--steps must be a whole number from 1 up, not '0'", error("m", "--steps", "0"));
        assertEquals("--steps must be a whole number, not 'x'", error("m", "--steps", "x"));
        assertEquals("--steps needs a value", error("m", "--steps"));
        assertEquals("--profile-dir needs --profile", error("m", "--profile-dir", "d"));
        assertEquals("unknown flag '--fast' for 'run'; see 'vantage run --help'", error("m", "--fast"));
        assertTrue(error("m", "--profile", "--profile-activities", "g/pu").startsWith("not an activity name: 'g/pu'"));
        assertEquals("--rank 2 must be below --world-size 2", error("m", "--rank", "2", "--world-size", "2"));
        assertEquals("--world-size needs --rank", error("m", "--world-size", "2"));
        assertTrue(error("m", "--profile", "--profile-name", "a/b").contains("'a/b'"));
        assertTrue(error("m", "--profile", "--profile-name", "..").contains("'..'"));
        assertEquals("unexpected argument 'extra' (workload is 'm')", error("m", "extra"));
        assertEquals("--profile-export needs at least one value", error("m", "--profile", "--profile-export"));
    }

    @Test
    public void theHelpListsEverySortKeyTorchAccepts() {
        // torch's table sort_by keys, in their device spelling (torch.autograd.profiler_util)
        for (String key : new String[] {"cpu_time", "device_time", "cpu_time_total", "device_time_total",
                "self_cpu_time_total", "self_device_time_total", "cpu_memory_usage", "device_memory_usage",
                "self_cpu_memory_usage", "self_device_memory_usage", "count"}) {
            assertTrue(key, RunOptions.HELP.matches("(?s).*[ ,]" + key + "[,\\n].*"));
        }
    }

    @Test
    public void maxEventsAndRanksFromTheEnvironment() throws UsageException {
        RunOptions o = RunOptions.parse(List.of("m", "--profile", "--max-events", "5000"),
                Map.of("RANK", "3", "WORLD_SIZE", "8"));
        assertEquals(Long.valueOf(5000), o.maxEvents);
        assertEquals(Integer.valueOf(3), o.rank);
        assertEquals(Integer.valueOf(8), o.worldSize);
        assertTrue(o.baseName(), o.baseName().endsWith("-rank3"));
        RunOptions flags = RunOptions.parse(List.of("m", "--rank", "1", "--world-size", "2"),
                Map.of("RANK", "3", "WORLD_SIZE", "8"));
        assertEquals("flags win over the environment", Integer.valueOf(1), flags.rank);
        assertEquals(Integer.valueOf(2), flags.worldSize);
        assertEquals("--max-events needs --profile", error("m", "--max-events", "10"));
        assertTrue(error("m", "--profile", "--max-events", "0").contains("'0'"));
    }
}
