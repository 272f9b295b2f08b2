package dev.vantage.launcher;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.Test;

public class LaunchArgsTest {

    private static LaunchArgs parse(String... args) {
        return LaunchArgs.parse(List.of(args));
    }

    private static String refusal(String... args) {
        return assertThrows(IllegalArgumentException.class, () -> parse(args)).getMessage();
    }

    @Test
    public void launchFlagsComeBeforeTheWorkloadAndDefaultAsTorchrunDoes() {
        LaunchArgs a = parse("--nproc", "2", "matmul");
        assertFalse(a.help());
        assertEquals(2, a.nproc());
        assertEquals("127.0.0.1", a.masterAddr());
        assertEquals(29500, a.masterPort());
        assertEquals(60_000, a.timeoutMillis());
        assertEquals("matmul", a.workload());
        assertEquals(List.of(), a.runArgs());

        LaunchArgs b = parse("--timeout", "1.5m", "--master-port", "1", "--master-addr", "localhost", "--nproc",
                "64", "mlp");
        assertEquals(64, b.nproc());
        assertEquals("localhost", b.masterAddr());
        assertEquals(1, b.masterPort());
        assertEquals(90_000, b.timeoutMillis());
        assertEquals(500, parse("--nproc", "1", "--timeout", "500ms", "m").timeoutMillis());
    }

    @Test
    public void flagsAfterTheWorkloadGoToRunUnchanged() {
        LaunchArgs a = parse("--nproc", "2", "matmul", "--steps", "3", "--profile", "--profile-name", "bert",
                "--nproc", "7", "--help", "extra");
        assertEquals("matmul", a.workload());
        assertEquals(List.of("--steps", "3", "--profile", "--profile-name", "bert", "--nproc", "7", "--help",
                "extra"), a.runArgs());
        assertFalse(a.help());
    }

    @Test
    public void helpBeforeTheWorkloadAsksForTheUsage() {
        assertTrue(parse("--help").help());
        assertTrue(parse("--nproc", "2", "-h").help());
    }

    @Test
    public void badLaunchFlagsAreRefusedNamingTheValue() {
        assertEquals("launch needs --nproc N (the number of ranks, 1 to 64); see 'vantage launch --help'",
                refusal());
        assertEquals("launch needs --nproc N (the number of ranks, 1 to 64) before the workload; see 'vantage"
                + " launch --help'", refusal("matmul", "--nproc", "2"));
        assertEquals("--nproc takes a number of ranks from 1 to 64, not '0'", refusal("--nproc", "0", "m"));
        assertEquals("--nproc takes a number of ranks from 1 to 64, not '65'", refusal("--nproc", "65", "m"));
        assertEquals("--nproc takes a number of ranks from 1 to 64, not '-1'", refusal("--nproc", "-1", "m"));
        assertEquals("--nproc takes a number of ranks from 1 to 64, not 'two'", refusal("--nproc", "two", "m"));
        assertEquals("--nproc needs a value", refusal("--nproc"));
        assertEquals("--nproc needs a value", refusal("--nproc", "--master-port", "1", "m"));
        assertEquals("--master-port takes a port from 1 to 65535, not '0'", refusal("--nproc", "2",
                "--master-port", "0", "m"));
        assertEquals("--master-port takes a port from 1 to 65535, not '65536'", refusal("--nproc", "2",
                "--master-port", "65536", "m"));
        assertEquals("--timeout takes a time such as 500ms, 2s, 1.5s or 1m, not '30'", refusal("--nproc", "2",
                "--timeout", "30", "m"));
        assertEquals("--timeout must be more than zero, not '0s'", refusal("--nproc", "2", "--timeout", "0s",
                "m"));
        assertEquals("--master-addr needs a value", refusal("--nproc", "2", "--master-addr", " ", "m"));
        assertEquals("launch needs a workload to run, such as 'matmul'; see 'vantage launch --help'",
                refusal("--nproc", "2"));
        assertEquals("--nproc is given twice", refusal("--nproc", "2", "--nproc", "3", "m"));
        assertEquals("unknown flag '--steps' for 'launch'; launch flags go before the workload, run flags after it"
                + " (see 'vantage launch --help')", refusal("--nproc", "2", "--steps", "3", "m"));
    }

    @Test
    public void everyRankGetsTorchrunsVariables() {
        LaunchArgs a = parse("--nproc", "4", "--master-port", "29600", "--timeout", "30s", "m");
        assertEquals(Map.of("RANK", "1", "LOCAL_RANK", "1", "WORLD_SIZE", "4", "LOCAL_WORLD_SIZE", "4",
                "MASTER_ADDR", "127.0.0.1", "MASTER_PORT", "29600", "VANTAGE_LAUNCH_TIMEOUT_MS", "30000",
                "VANTAGE_LAUNCH_ID", LaunchArgs.LAUNCH_ID, "VANTAGE_JOB_ID", LaunchArgs.JOB_ID),
                a.environment(1));
        assertEquals("3", a.environment(3).get("RANK"));
        // the run registry's job id: the same for every rank, in the form of a run id
        assertTrue(LaunchArgs.JOB_ID, LaunchArgs.JOB_ID.matches("[0-9a-f]{12}"));
        assertEquals(a.environment(0).get("VANTAGE_JOB_ID"), a.environment(3).get("VANTAGE_JOB_ID"));
        assertEquals("rank 4 is not in 0..3", assertThrows(IllegalArgumentException.class,
                () -> a.environment(4)).getMessage());
    }

    @Test
    public void eachRankRunsThisJarWithTheLaunchersJvmOptions() {
        LaunchArgs a = parse("--nproc", "2", "matmul", "--steps", "3");
        Path java = Path.of("/jdk/bin/java");
        Path jar = Path.of("/dist/full/launcher.jar");
        assertEquals(List.of("/jdk/bin/java", "-Xmx2g", "-Dvantage.home=/d", "-jar", "/dist/full/launcher.jar",
                "run", "matmul", "--steps", "3"),
                Launch.rankCommand(java, List.of("-Xmx2g", "-Dvantage.home=/d"), jar, null, a));
        assertEquals(List.of("/jdk/bin/java", "-jar", "/dist/full/launcher.jar", "--distribution", "minimal", "run",
                "matmul", "--steps", "3"), Launch.rankCommand(java, List.of(), jar, "minimal", a));
    }

    @Test
    public void launchIsAVerbTheLauncherRunsItself() {
        LauncherArgs a = LauncherArgs.parse(new String[] {"launch", "--nproc", "2", "matmul", "--distribution",
            "minimal", "--steps", "3"});
        assertEquals(LauncherArgs.Mode.TOOL, a.mode);
        assertEquals("minimal", a.distribution);
        assertEquals(List.of("launch", "--nproc", "2", "matmul", "--steps", "3"), a.platformArgs);
        assertTrue(LauncherArgs.TOOL_VERBS.contains("launch"));
    }
}
