package dev.vantage.verbs.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.junit.Test;

import dev.vantage.cli.UsageException;

import dev.vantage.profiler.api.Profiler;
import dev.vantage.tensor.DeviceInfo;
import dev.vantage.tensor.workload.RunFlag;
import dev.vantage.tensor.workload.Workload;
import dev.vantage.tensor.workload.WorkloadContext;

/** The verbs against a platform made up for the test; profiling runs are covered by the command-line ITs. */
public class VerbsTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final Map<String, Workload> workloads = new TreeMap<>();

    private final Platform platform = new Platform() {
        @Override
        public List<BundleRow> bundles() {
            return List.of(new BundleRow(0, "org.apache.felix.framework", "7.0.5", "ACTIVE"),
                    new BundleRow(1, "dev.vantage.device.npu", "0.2.0", "RESOLVED"));
        }

        @Override
        public List<DeviceInfo> devices() {
            return List.of(new DeviceInfo("cpu", "CPU", false, "dev.vantage.device.cpu", "0.1.0"),
                    new DeviceInfo("npu", "NPU", true, "dev.vantage.device.npu", "0.2.0"));
        }

        @Override
        public Profiler profiler() {
            throw new AssertionError("not needed by these verbs");
        }

        @Override
        public Map<String, Workload> workloads() {
            return workloads;
        }
    };

    private int run(String... args) {
        Verbs verbs = new Verbs(platform, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), Map.of());
        return verbs.execute(List.of(args));
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    public void bundlesPrintsNameVersionAndState() {
        assertEquals(0, run("bundles"));
        // written out by hand, not with the code's format string, so that the two can disagree
        assertEquals(String.join(System.lineSeparator(),
                "ID   SYMBOLIC NAME                              VERSION                STATE",
                "0    org.apache.felix.framework                 7.0.5                  ACTIVE",
                "1    dev.vantage.device.npu                     0.2.0                  RESOLVED", ""),
                out());
    }

    @Test
    public void devicesSayEmulatedOrNative() {
        assertEquals(0, run("devices"));
        List<String> lines = out().lines().toList();
        assertTrue(lines.get(1), lines.get(1).matches("cpu\\s+CPU\\s+native\\s+dev.vantage.device.cpu 0.1.0"));
        assertTrue(lines.get(2), lines.get(2).matches("npu\\s+NPU\\s+emulated\\s+dev.vantage.device.npu 0.2.0"));
    }

    @Test
    public void usageErrorsExitWith2() {
        assertEquals(2, run());
        assertTrue(err(), err().startsWith("vantage: which verb?"));
        assertEquals(2, run("explode"));
        assertTrue(err().contains("unknown verb 'explode'"));
        assertEquals(2, run("devices", "--all"));
        assertTrue(err().contains("unknown flag '--all' for 'devices'"));
        assertEquals(2, run("run", "missing"));
        assertTrue(err().contains("unknown workload 'missing'; available: "));
    }

    @Test
    public void serveAndShellKeepThePlatformRunning() {
        assertEquals(Verbs.KEEP_RUNNING, run("serve"));
        assertEquals(Verbs.KEEP_RUNNING, run("shell"));
        assertEquals(0, run("serve", "--help"));
        assertTrue(out().contains("usage: vantage serve"));
    }

    @Test
    public void runWithoutProfileRunsTheWorkloadOnTheChosenDevice() {
        StringBuilder seen = new StringBuilder();
        workloads.put("toy", new Workload() {
            @Override
            public String name() {
                return "toy";
            }

            @Override
            public String description() {
                return "test";
            }

            @Override
            public void run(WorkloadContext context) {
                for (int i = 0; i < context.steps(); i++) {
                    context.step();
                    seen.append(i);
                }
                seen.append(' ').append(context.device()).append(' ').append(context.seed());
            }
        });
        assertEquals(err(), 0, run("run", "toy", "--steps", "3", "--device", "npu:0", "--seed", "9"));
        assertEquals("012 npu:0 9", seen.toString());
        assertEquals(2, run("run", "toy", "--device", "mps"));
        assertTrue(err(), err().contains("--device mps: no such device backend; installed: cpu, npu"));
    }

    @Test
    public void aFailingWorkloadExitsWith1AndSaysWhy() {
        workloads.put("bad", new Workload() {
            @Override
            public String name() {
                return "bad";
            }

            @Override
            public String description() {
                return "fails";
            }

            @Override
            public void run(WorkloadContext context) {
                throw new IllegalStateException("diverged");
            }
        });
        assertEquals(1, run("run", "bad"));
        assertTrue(err(), err().contains("workload 'bad' failed: java.lang.IllegalStateException: diverged"));
    }

    @Test
    public void aRunEndsAtItsNextStepWithOneLineWhenThePlatformStops() throws Exception {
        Verbs verbs = new Verbs(platform, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), Map.of());
        workloads.put("endless", new Workload() {
            @Override
            public String name() {
                return "endless";
            }

            @Override
            public String description() {
                return "steps until stopped";
            }

            @Override
            public void run(WorkloadContext context) {
                for (int i = 0; i < context.steps(); i++) {
                    if (i == 3) {
                        // as the framework's STOPPING event does (CommandComponent), here from the run's own thread
                        try {
                            verbs.close();
                        } catch (InterruptedException e) {
                            throw new AssertionError(e);
                        }
                    }
                    context.step();
                }
            }
        });
        assertEquals(1, verbs.execute(List.of("run", "endless", "--steps", "1000000")));
        assertEquals("vantage: run stopped after 3 of 1000000 steps: the platform is stopping", err().strip());
    }

    @Test
    public void versionNamesTheFrameworkTheJvmAndEveryBundle() {
        assertEquals(0, run("--version"));
        List<String> lines = out().lines().toList();
        assertTrue(lines.get(0), lines.get(0).startsWith("Vantage on org.apache.felix.framework 7.0.5, Java "
                + System.getProperty("java.version")));
        assertEquals(2, lines.size());
        assertTrue(lines.get(1), lines.get(1).matches("dev\\.vantage\\.device\\.npu +0\\.2\\.0"));
        assertEquals(2, run("--version", "--all"));
    }

    @Test
    public void serveRefusesAnUnknownWorkloadOrDeviceWithExitCode2() {
        assertEquals(2, run("serve", "--workload", "nosuch"));
        assertTrue(err(), err().contains("unknown workload 'nosuch'; available: "));
        workloads.put("toy", toy());
        assertEquals(2, run("serve", "--workload", "toy", "--device", "nosuch"));
        assertTrue(err(), err().contains("--device nosuch: no such device backend; installed: cpu, npu"));
    }

    @Test
    public void workloadsListsEveryWorkloadWithItsDescription() {
        workloads.put("toy", toy());
        assertEquals(0, run("workloads"));
        assertEquals(List.of("WORKLOAD             DESCRIPTION", "toy                  a toy"), out().lines().toList());
    }

    @Test
    public void aWorkloadFlagTheWorkloadDoesNotTakeIsRefusedBeforeAnyWork() {
        int[] ran = {0};
        workloads.put("infer", sized(EnumSet.of(RunFlag.BATCH_SIZE, RunFlag.THREADS), 0, ran));
        workloads.put("fixed", sized(EnumSet.noneOf(RunFlag.class), 0, ran));
        assertEquals(2, run("run", "infer", "--optimizer", "sgd"));
        assertEquals("vantage: --optimizer: workload 'infer' does not take it; it takes --batch-size, --threads\n",
                err().replace(System.lineSeparator(), "\n"));
        err.reset();
        assertEquals(2, run("run", "fixed", "--threads", "2"));
        assertEquals("vantage: --threads: workload 'fixed' does not take it; it takes no workload flag, only"
                + " --steps, --seed and --device\n", err().replace(System.lineSeparator(), "\n"));
        err.reset();
        assertEquals(2, run("serve", "--workload", "fixed", "--batch-size", "8"));
        assertTrue(err(), err().startsWith("vantage: --batch-size: workload 'fixed' does not take it"));
        // a model run's flags on a workload without a model
        for (String[] flag : List.of(new String[] {"--seq-len", "16"}, new String[] {"--input", "x=1x2"})) {
            err.reset();
            assertEquals(2, run("run", "infer", flag[0], flag[1]));
            assertTrue(err(), err().startsWith("vantage: " + flag[0] + ": workload 'infer' does not take it"));
        }
        assertEquals("nothing ran", 0, ran[0]);
        assertEquals(0, run("run", "infer", "--threads", "2", "--batch-size", "3", "--steps", "1"));
        assertEquals(1, ran[0]);
    }

    @Test
    public void sizesTheHeapCannotHoldAreRefusedNamingTheLimit() throws Exception {
        int[] ran = {0};
        // a gigabyte per sample: a batch of 99999999 is beyond any heap this test runs in
        workloads.put("big", sized(EnumSet.allOf(RunFlag.class), 1L << 30, ran));
        assertEquals(2, run("run", "big", "--batch-size", "99999999"));
        String line = err().replace(System.lineSeparator(), "\n");
        assertTrue(line, line.matches("vantage: --batch-size 99999999: workload 'big' needs at least [0-9.]+ GB of heap"
                + " for it, and this JVM may use [0-9.]+ [GM]B; give smaller sizes or more heap"
                + " \\(VANTAGE_JAVA_OPTS=-Xmx\\.\\.\\.\\)\\n"));
        err.reset();
        workloads.put("huge", sized(EnumSet.allOf(RunFlag.class), Long.MAX_VALUE, ran));
        assertEquals(2, run("run", "huge", "--batch-size", "2", "--threads", "3"));
        assertTrue(err(), err().startsWith("vantage: --batch-size 2 --threads 3: workload 'huge' cannot hold a batch"
                + " that large in any heap"));
        assertEquals(0, ran[0]);
        UsageException steps = org.junit.Assert.assertThrows(UsageException.class,
                () -> RunVerb.checkSteps(Integer.MAX_VALUE, 64L << 20));
        assertEquals("--steps 2147483647: a profiled run keeps every step's time for its line in runs.jsonl, up to 512"
                + " bytes each, and a quarter of this JVM's heap (64.0 MB) holds 32768 of them; give at most 32768"
                + " steps, or more heap (VANTAGE_JAVA_OPTS=-Xmx...)", steps.getMessage());
        RunVerb.checkSteps(32768, 64L << 20);
    }

    @Test
    public void ddpWithoutALaunchAndTooManyThreadsAreRefusedByTheCommandLine() {
        workloads.put("toy", toy());
        assertEquals(2, run("run", "toy", "--ddp"));
        assertEquals("vantage: --ddp trains over the ranks that 'vantage launch' starts, and RANK, WORLD_SIZE,"
                + " MASTER_ADDR, MASTER_PORT are not set here: run it as 'vantage launch --nproc N toy --ddp ...'\n",
                err().replace(System.lineSeparator(), "\n"));
        err.reset();
        assertEquals(2, run("run", "toy", "--threads", "100000"));
        assertTrue(err(), err().contains("'100000' is more threads than a run takes (at most 1024"));
    }

    /** A workload taking these flags whose batches need {@code bytesPerSample} each; counts its runs. */
    private static Workload sized(Set<RunFlag> flags, long bytesPerSample, int[] ran) {
        return new Workload() {
            @Override
            public String name() {
                return "sized";
            }

            @Override
            public String description() {
                return "sized";
            }

            @Override
            public Set<RunFlag> flags() {
                return flags;
            }

            @Override
            public long minimumHeapBytes(int batchSize, int threads) {
                if (bytesPerSample == Long.MAX_VALUE) {
                    return Long.MAX_VALUE;
                }
                return Math.max(1, batchSize) * bytesPerSample;
            }

            @Override
            public void run(WorkloadContext context) {
                ran[0]++;
            }
        };
    }

    private static Workload toy() {
        return new Workload() {
            @Override
            public String name() {
                return "toy";
            }

            @Override
            public String description() {
                return "a toy";
            }

            @Override
            public void run(WorkloadContext context) {
                for (int i = 0; i < context.steps(); i++) {
                    context.step();
                }
            }
        };
    }
}
