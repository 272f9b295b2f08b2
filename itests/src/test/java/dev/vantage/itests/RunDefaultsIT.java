package dev.vantage.itests;

import static dev.vantage.itests.LauncherProcess.refused;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.zip.GZIPInputStream;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** What a new user meets first on {@code vantage run}: cache-dit's defaults, refusals before any work, progress. */
public class RunDefaultsIT {

    private static final Path FULL = Distributions.home("full");

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Test
    public void badInputIsRefusedInOneLineBeforeAnyWorkAndNothingIsWritten() throws Exception {
        Path file = tmp.newFile("a-file").toPath();
        assertEquals("vantage: --profile-dir " + file + ": not a directory",
                refused(FULL, "run", "matmul", "--profile", "--profile-dir", file.toString()));

        Path unwritable = Path.of("/proc/vantage-it-" + ProcessHandle.current().pid(), "traces");
        String line = refused(FULL, "run", "matmul", "--profile", "--profile-dir", unwritable.toString());
        assertTrue(line, line.startsWith("vantage: --profile-dir " + unwritable + ": cannot write traces there ("));
        assertFalse(Files.exists(unwritable.getParent()));

        Path dir = tmp.getRoot().toPath().resolve("never-made");
        assertEquals("vantage: --device npu: workload 'matmul' does not run on npu; it runs on cpu",
                refused(FULL, "run", "matmul", "--device", "npu", "--profile", "--profile-dir", dir.toString()));
        assertEquals("vantage: --profile-activities SPYRE: records spyre devices, but the run is on npu:0;"
                + " record NPU for it", refused(FULL, "run", "mlp-train", "--device", "npu", "--profile",
                "--profile-activities", "CPU", "SPYRE", "--profile-dir", dir.toString()));
        assertEquals("vantage: --profile-export chrome: no such exporter in this distribution; installed: none"
                + " (deploy an exporter bundle into the deploy directory, or use --distribution full)",
                refused(FULL, "--distribution", "minimal", "run", "matmul", "--profile", "--profile-dir",
                        dir.toString()));
        assertFalse("a refused run writes nothing", Files.exists(dir));
    }

    @Test
    public void aPlainProfiledRunFollowsCacheDitsDefaults() throws Exception {
        Path dir = tmp.newFolder("defaults").toPath();
        // GPU names the run device's activity, as cache-dit's --profile-activities CPU GPU does
        for (String[] activities : new String[][] {{}, {"--profile-activities", "CPU", "GPU"}}) {
            List<String> args = new ArrayList<>(List.of("run", "mlp-train", "--device", "npu", "--steps", "6",
                    "--profile", "--profile-dir", dir.toString(), "--profile-name", "d" + activities.length));
            args.addAll(List.of(activities));
            LauncherProcess.Result r = LauncherProcess.run(FULL, args.toArray(new String[0]));
            assertEquals(r.err(), 0, r.exitCode());
            assertTrue(r.out(), r.out().contains("trace written: " + dir.resolve("d" + activities.length
                    + ".trace.json.gz") + " (open it in https://ui.perfetto.dev or chrome://tracing)"));
            assertSortedBySelfNpu(r.out());
            JsonNode root;
            try (InputStream in = new GZIPInputStream(Files.newInputStream(
                    dir.resolve("d" + activities.length + ".trace.json.gz")))) {
                root = new ObjectMapper().readTree(in);
            }
            Set<String> steps = new HashSet<>();
            long kernels = 0;
            long opsWithShapes = 0;
            for (JsonNode e : root.get("traceEvents")) {
                String name = e.path("name").asText();
                if (name.startsWith("ProfilerStep#")) {
                    steps.add(name);
                }
                if ("kernel".equals(e.path("cat").asText())) {
                    kernels++;
                }
                if ("cpu_op".equals(e.path("cat").asText()) && e.path("args").has("Input Dims")) {
                    opsWithShapes++;
                }
            }
            // wait 0, warmup 1, active 3, repeat 1: steps 1 to 3 of 6
            assertEquals(Set.of("ProfilerStep#1", "ProfilerStep#2", "ProfilerStep#3"), steps);
            assertTrue("the run device's activity is recorded by default: " + kernels, kernels > 0);
            assertTrue("shapes are recorded by default", opsWithShapes > 0);
        }
        LauncherProcess.Result off = LauncherProcess.run(FULL, "run", "matmul", "--steps", "5", "--profile",
                "--profile-record-shapes=false", "--profile-dir", dir.toString(), "--profile-name", "off");
        assertEquals(off.err(), 0, off.exitCode());
        try (InputStream in = new GZIPInputStream(Files.newInputStream(dir.resolve("off.trace.json.gz")))) {
            for (JsonNode e : new ObjectMapper().readTree(in).get("traceEvents")) {
                assertFalse(e.toString(), e.path("args").has("Input Dims"));
            }
        }
        assertEquals("vantage: --profile-activities GPU: the run is on cpu:0, which has no device activity;"
                + " record CPU", refused(FULL, "run", "matmul", "--profile", "--profile-activities", "GPU",
                "--profile-dir", dir.resolve("never").toString()));
    }

    /** Checks the table's rows come in falling order of their Self NPU column, the device run's default order. */
    private static void assertSortedBySelfNpu(String out) {
        List<String> lines = out.lines().toList();
        int header = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).trim().startsWith("Name ") && lines.get(i).contains("Self NPU ")) {
                header = i;
                break;
            }
        }
        assertTrue(out, header >= 0);
        String head = lines.get(header);
        int end = head.indexOf("Self NPU ") + "Self NPU".length();
        List<Double> values = new ArrayList<>();
        for (int i = header + 2; i < lines.size() && !lines.get(i).startsWith("---"); i++) {
            String line = lines.get(i);
            // columns are right-aligned under their header: the value ends where the header's name ends
            String cell = line.substring(0, Math.min(end, line.length())).trim();
            cell = cell.substring(cell.lastIndexOf(' ') + 1);
            double scale = cell.endsWith("ms") ? 1e3 : cell.endsWith("us") ? 1 : cell.endsWith("s") ? 1e6 : -1;
            assertTrue(line, scale > 0);
            values.add(Double.parseDouble(cell.replaceAll("[a-z]+$", "")) * scale);
        }
        assertTrue(out, values.size() > 3);
        for (int i = 1; i < values.size(); i++) {
            assertTrue("row " + i + " of " + values, values.get(i) <= values.get(i - 1));
        }
    }

    @Test
    public void aRunOnATerminalShowsItsProgressAndOneIntoAPipeShowsNone() throws Exception {
        Path dir = tmp.newFolder("progress").toPath();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String command = java + " -jar " + FULL.resolve("launcher.jar") + " run matmul --steps 6 --profile"
                + " --profile-dir " + dir + " --profile-name t";
        // util-linux script runs the command on a pseudo-terminal, as a person's shell would
        Process p = new ProcessBuilder("script", "-q", "-e", "-c", command, "/dev/null")
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectErrorStream(true).start();
        String terminal = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(terminal, 0, p.waitFor());
        assertTrue(terminal, terminal.contains("vantage: step 3/6 (record and save)"));
        assertTrue(terminal, terminal.contains("vantage: exporting chrome to " + dir.resolve("t.trace.json.gz")));
        assertTrue(terminal, terminal.contains("vantage: step 6/6 (none)"));

        LauncherProcess.Result piped = LauncherProcess.run(FULL, "run", "matmul", "--steps", "6", "--profile",
                "--profile-dir", dir.toString(), "--profile-name", "p");
        assertEquals(piped.err(), 0, piped.exitCode());
        assertFalse(piped.out() + piped.err(), (piped.out() + piped.err()).contains("vantage: step"));
        assertFalse(piped.err(), piped.err().contains("\u001b"));
    }
}
