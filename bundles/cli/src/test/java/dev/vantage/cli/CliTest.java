package dev.vantage.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.Test;

public class CliTest {

    private static final Map<String, String> NO_ENV = Map.of();

    private static ParsedCommand parse(String... args) throws UsageException {
        return Cli.parse(List.of(args), NO_ENV);
    }

    private static String refusal(Map<String, String> env, String... args) {
        try {
            Cli.parse(List.of(args), env);
        } catch (UsageException e) {
            assertFalse(e.getMessage(), e.getMessage().contains("\n"));
            return e.getMessage();
        }
        fail("accepted: " + List.of(args));
        return null;
    }

    private static String refusal(String... args) {
        return refusal(NO_ENV, args);
    }

    @Test
    public void everyVerbAnswersHelpWithItsOwnUsage() throws Exception {
        for (String verb : Cli.verbs()) {
            for (String flag : List.of("--help", "-h")) {
                ParsedCommand c = parse(verb, flag);
                assertTrue(verb, c.helpRequested());
                assertTrue(c.help(), c.help().startsWith("usage: vantage " + verb));
            }
            assertEquals(Cli.help(verb), parse("help", verb).help());
        }
        assertEquals(List.of("run", "workloads", "bundles", "devices", "exporters", "serve", "board", "shell",
                "profile", "launch", "features", "assemble", "runs", "compare", "report", "analyze", "convert", "merge",
                "daemon", "completion", "help"),
                Cli.verbs());
    }

    @Test
    public void theTopLevelHelpListsEveryVerbWithItsDescription() throws Exception {
        String help = parse("--help").help();
        assertTrue(help, help.startsWith("usage: vantage [--distribution NAME] <verb> [flags]"));
        for (String verb : Cli.verbs()) {
            assertTrue(verb + " in\n" + help, help.matches("(?s).*\\n  " + verb + " +\\S.*"));
        }
        assertEquals(help, parse("help").help());
    }

    @Test
    public void helpWinsOverMissingArguments() throws Exception {
        assertTrue(parse("run", "--help").helpRequested());
        assertTrue(parse("launch", "--help").helpRequested());
        assertTrue(parse("profile", "--help").helpRequested());
        assertTrue(parse("profile", "4242", "start", "--help").help().startsWith("usage: vantage profile start"));
    }

    @Test
    public void runFlagsAreTypedAndTakeEqualsForm() throws Exception {
        RunCommand run = parse("run", "mlp-train", "--steps=6", "--device", "npu", "--profile",
                "--profile-activities", "CPU", "NPU", "MEM", "--profile-record-shapes=false", "--profile-wait", "1",
                "--profile-active", "2", "--device-memory", "256m", "--profile-dir", "out", "--profile-name", "x")
                .options(RunCommand.class);
        assertEquals("mlp-train", run.workload());
        assertEquals(6, run.steps());
        assertEquals("npu", run.run().device());
        assertEquals(List.of("CPU", "NPU", "MEM"), run.activities());
        assertFalse(run.recordShapes());
        assertEquals(Map.of("wait", 1, "warmup", 1, "active", 2, "repeat", 1, "skip_first", 0), run.schedule());
        assertEquals(256L << 20, (long) run.deviceMemory());
        assertEquals(Path.of("out").toAbsolutePath(), run.profileDir());
        assertEquals("x", run.baseName());
        assertEquals(List.of("chrome"), run.exports());
        assertEquals(Host.PLATFORM, parse("run", "matmul").host());
    }

    @Test
    public void runsListsTakeCommasAsProfileStartsDo() throws Exception {
        // 'vantage profile <pid> start --export chrome,csv' took commas; 'run --profile-export chrome,csv' named one
        // exporter "chrome,csv" and refused it
        RunCommand run = parse("run", "matmul", "--profile", "--profile-export", "chrome,csv", "perfetto",
                "--profile-activities", "CPU,MEM", "--steps", "2").options(RunCommand.class);
        assertEquals(List.of("chrome", "csv", "perfetto"), run.exports());
        assertEquals(List.of("CPU", "MEM"), run.activities());
        assertEquals(2, run.steps());
        ProfileCommand.Start start = parse("profile", "4242", "start", "--export", "chrome,csv", "perfetto")
                .options(ProfileCommand.Start.class);
        assertEquals(run.exports(), start.capture().exports());
    }

    @Test
    public void aGivenProfileNameIsClaimedAsADefaultOneIsUnlessARankTellsItsFilesApart() throws Exception {
        // four runs given one --profile-name wrote over three traces: a given name is claimed as a default one is
        RunCommand given = parse("run", "matmul", "--profile", "--profile-name", "same").options(RunCommand.class);
        assertTrue(given.claimsProfileName());
        assertTrue(given.givenProfileName());
        RunCommand defaulted = parse("run", "matmul", "--profile").options(RunCommand.class);
        assertTrue(defaulted.claimsProfileName());
        assertFalse(defaulted.givenProfileName());
        RunCommand rank = parse("run", "matmul", "--profile", "--profile-name", "same", "--rank", "1")
                .options(RunCommand.class);
        assertFalse("a rank's files are told apart by -rank<N>", rank.claimsProfileName());
    }

    @Test
    public void runDefaultsComeFromTheEnvironmentAsTorchrunSetsThem() throws Exception {
        Map<String, String> env = Map.of("RANK", "1", "WORLD_SIZE", "4", "VANTAGE_PROFILER_DIR", "/tmp/p",
                "VANTAGE_LAUNCH_ID", "20261124-101010");
        RunCommand run = Cli.parse(List.of("run", "matmul", "--profile"), env).options(RunCommand.class);
        assertEquals(1, (int) run.rank());
        assertEquals(4, (int) run.worldSize());
        assertEquals(Path.of("/tmp/p"), run.profileDir());
        assertEquals("matmul-20261124-101010-rank1", run.baseName());
        RunCommand blank = Cli.parse(List.of("run", "matmul"), Map.of("VANTAGE_PROFILER_DIR", "  "))
                .options(RunCommand.class);
        assertEquals(Path.of("vantage_profiles").toAbsolutePath(), blank.profileDir());
        assertNull(blank.rank());
        assertEquals("--rank 4 must be below --world-size 4", refusal(env, "run", "matmul", "--rank", "4"));
        assertEquals("$RANK: 'x' is not a whole number (0 or more)", refusal(Map.of("RANK", "x"), "run", "matmul"));
    }

    @Test
    public void refusalsAreOneLineNamingTheValue() {
        assertEquals("unknown verb 'frobnicate'; verbs: run, workloads, bundles, devices, exporters, serve, board,"
                + " shell, profile, launch, features, assemble, runs, compare, report, analyze, convert, merge,"
                + " daemon, completion, help",
                refusal("frobnicate"));
        assertEquals("unknown flag '--shiny' for 'bundles'; see 'vantage bundles --help'", refusal("bundles",
                "--shiny"));
        assertTrue(refusal("run", "matmul", "--steps", "zero"), refusal("run", "matmul", "--steps", "zero")
                .contains("'zero' is not a whole number (1 or more)"));
        assertTrue(refusal("run", "matmul", "--steps", "0").contains("'0' is out of range (1 or more)"));
        assertTrue(refusal("run", "matmul", "--profile", "--profile-name", "../escape").contains("'../escape'"));
        assertEquals("--profile-dir needs --profile", refusal("run", "matmul", "--profile-dir", "x"));
        assertEquals("--max-events needs --profile", refusal("run", "matmul", "--max-events", "10"));
        assertEquals("--world-size needs --rank", refusal("run", "matmul", "--world-size", "2"));
        assertTrue(refusal("run").startsWith("run: missing required parameter: '<workload>'"));
        assertTrue(refusal("run", "a", "b").contains("unknown argument 'b' for 'run'"));
        assertTrue(refusal("run", "a", "--optimizer", "lbfgs").contains("'lbfgs' is not sgd or adam"));
        assertTrue(refusal("run", "a", "--device-memory", "lots").contains("'lots' is not a size"));
        assertEquals("which verb? 'vantage --help' lists them", refusal());
        assertTrue(refusal("--distribution", "../x", "bundles").contains("'../x' is not a name"));
        assertEquals("--device needs --workload", refusal("serve", "--device", "npu"));
    }

    @Test
    public void modelFlagsReachTheWorkloadOfRunAndServe() throws Exception {
        RunCommand run = parse("run", "onnx", "--model", "m.onnx", "--seq-len", "32", "--input", "input_ids=1x32",
                "attention_mask=1,32", "--steps", "5", "--profile").options(RunCommand.class);
        assertEquals(Path.of("m.onnx").toAbsolutePath(), run.run().model());
        assertEquals(32, run.run().sequenceLength());
        Map<String, long[]> shapes = run.run().inputShapes();
        assertEquals(List.of("input_ids", "attention_mask"), List.copyOf(shapes.keySet()));
        assertTrue(java.util.Arrays.equals(new long[] {1, 32}, shapes.get("attention_mask")));
        assertEquals(5, run.steps());
        WorkloadOptions plain = parse("run", "matmul").options(RunCommand.class).run();
        assertNull(plain.model());
        assertEquals(0, plain.sequenceLength());
        assertTrue(plain.inputShapes().isEmpty());
        WorkloadOptions served = parse("serve", "--workload", "onnx", "--model", "m.onnx", "--input", "x=1x3x8x8")
                .options(ServeCommand.class).run();
        assertEquals(Path.of("m.onnx").toAbsolutePath(), served.model());
        assertEquals(4, served.inputShapes().get("x").length);

        assertTrue(refusal("run", "onnx", "--input", "input_ids"), refusal("run", "onnx", "--input", "input_ids")
                .contains("'input_ids' is not NAME=DIMS such as input_ids=1x128"));
        assertTrue(refusal("run", "onnx", "--input", "x=1x0").contains("every dimension must be a whole number"));
        assertEquals("--input x is given twice", refusal("run", "onnx", "--input", "x=1", "x=2"));
        assertTrue(refusal("run", "onnx", "--seq-len", "0").contains("'0' is out of range (1 or more)"));
        assertTrue(refusal("run", "onnx", "--model").contains("--model"));
        assertEquals("--model needs --workload", refusal("serve", "--model", "m.onnx"));
        assertEquals("--input needs --workload", refusal("serve", "--input", "x=1"));
    }

    @Test
    public void distributionIsAcceptedBeforeOrAfterTheVerb() throws Exception {
        assertEquals("minimal", parse("--distribution", "minimal", "bundles").distribution());
        assertEquals("minimal", parse("run", "matmul", "--distribution", "minimal").distribution());
        assertNull(parse("bundles").distribution());
        assertEquals(Cli.VERSION, parse("--version").verb());
        assertEquals(Host.PLATFORM, parse("--version").host());
    }

    @Test
    public void profileTakesAProcessThenWhatToDo() throws Exception {
        ProfileCommand.Start start = parse("profile", "4242", "start", "--duration", "1.5s", "--activities", "CPU,MEM",
                "--export", "chrome", "csv", "--dir", "d").options(ProfileCommand.Start.class);
        assertEquals(4242, start.pid());
        assertEquals(1500, start.capture().durationMillis());
        assertEquals(List.of("CPU", "MEM"), start.capture().activities());
        assertEquals(List.of("chrome", "csv"), start.capture().exports());
        assertEquals(Path.of("d").toAbsolutePath(), start.capture().dir());
        assertEquals(List.of("profile", "start"), parse("profile", "4242", "start").verb());
        assertEquals(7, parse("profile", "7", "stop").options(ProfileCommand.Stop.class).pid());
        assertTrue(parse("profile", "--list").options(ProfileCommand.class).list());
        assertEquals("'profile 4242' needs start, status or stop", refusal("profile", "4242"));
        assertTrue(refusal("profile", "0", "stop").contains("'0' is out of range (1 or more)"));
        assertTrue(refusal("profile", "x", "stop").contains("'x' is not a whole number"));
        assertEquals("--duration and --iterations exclude each other: give one, or neither to capture until stopped",
                refusal("profile", "1", "start", "--duration", "1s", "--iterations", "3"));
        assertTrue(refusal("profile", "1", "start", "--duration", "0.5ms").contains("not a whole number of ms"
                .replace("ms", "milliseconds")));
        assertEquals("profile needs a process id or --list; see 'vantage profile --help'", refusal("profile"));
    }

    @Test
    public void launchChecksEveryRanksRunFlagsBeforeAnyRankStarts() throws Exception {
        LaunchCommand launch = parse("launch", "--nproc", "4", "mlp-train", "--ddp", "--profile", "--steps", "3")
                .options(LaunchCommand.class);
        assertEquals(4, launch.nproc());
        assertEquals("mlp-train", launch.workload());
        assertEquals(List.of("--ddp", "--profile", "--steps", "3"), launch.runArgs());
        assertEquals(29500, launch.masterPort());
        assertTrue(refusal("launch", "--nproc", "2", "matmul", "--steps", "x").contains("'x'"));
        assertTrue(refusal("launch", "--nproc", "65", "matmul").contains("'65' is out of range (1 to 64)"));
        assertTrue(refusal("launch", "matmul").contains("missing required option: '--nproc=N'"));
        assertEquals("launch gives each rank its --rank and --world-size; leave them out",
                refusal("launch", "--nproc", "2", "matmul", "--rank", "1"));
    }

    @Test
    public void analysisVerbsResolveTheProfileDirectoryOnce() throws Exception {
        Map<String, String> env = Map.of("VANTAGE_PROFILER_DIR", "/srv/profiles");
        assertEquals(Path.of("/srv/profiles"), Cli.parse(List.of("runs"), env).options(AnalysisCommand.Runs.class)
                .dir());
        AnalysisCommand.Compare compare = Cli.parse(List.of("compare", "a", "b", "--format", "JSON"), env)
                .options(AnalysisCommand.Compare.class);
        assertEquals(OutputFormat.JSON, compare.format());
        assertEquals(-1, compare.top());
        assertEquals(Host.ANALYSIS, parse("analyze", "d").host());
        assertEquals("compare takes two runs or traces, before and after; 1 was given: a", refusal("compare", "a"));
        assertEquals("compare takes two runs or traces, before and after; 3 were given: a b c",
                refusal("compare", "a", "b", "c"));
        assertEquals("compare takes two runs or traces, before and after; none was given", refusal("compare"));
        assertTrue(refusal("analyze", "d", "--engine", "oracle").contains("'oracle'"));
        assertTrue(refusal("report", "t", "-o", "page.pdf").endsWith("should end in .html"));
        assertTrue(refusal("analyze", "d", "--memory-limit", "lots").contains("'lots' is not a size"));
        assertTrue(refusal("analyze", "d", "--engine", "spark").contains("needs --remote"));
        assertTrue(refusal("analyze", "d", "--remote", "sc://h:15002").contains("is for --engine spark"));
        assertTrue(refusal("analyze", "d", "--engine", "spark", "--remote", "http://h").contains("is not sc://HOST:PORT"));
        assertEquals("--remote 'sc://127.0.0.1:99999': port 99999 is out of range (1 to 65535)",
                refusal("analyze", "d", "--engine", "spark", "--remote", "sc://127.0.0.1:99999"));
        assertEquals("--remote 'sc://127.0.0.1:0': port 0 is out of range (1 to 65535)",
                refusal("analyze", "d", "--engine", "spark", "--remote", "sc://127.0.0.1:0"));
        assertEquals("sc://localhost:15002", parse("analyze", "d", "--engine", "spark",
                "--remote", "sc://localhost:15002").options(AnalysisCommand.Analyze.class).remote());
        assertEquals(Host.ANALYSIS, parse("convert", ".", "-o", "out").host());
        assertTrue(refusal("convert", ".").contains("-o"));
        assertTrue(refusal("convert", "/no/such/dir", "-o", "out").contains("'/no/such/dir' does not exist"));
        assertEquals("-o '/proc/1/vantage' cannot be created: /proc/1 cannot be written",
                refusal("convert", ".", "-o", "/proc/1/vantage"));
        assertTrue(parse("report", "t", "--strict").options(AnalysisCommand.Report.class).strict());
        assertFalse(parse("report", "t").options(AnalysisCommand.Report.class).strict());
        assertTrue(parse("compare", "a", "b", "--strict").options(AnalysisCommand.Compare.class).strict());
        assertTrue(parse("convert", ".", "-o", "out", "--strict").options(AnalysisCommand.Convert.class).strict());
        assertEquals("--analysis sequences needs --operator NAME: the op whose kernel sequences to count"
                + " (ProfilerStep gives each step's)", refusal("analyze", "d", "--analysis", "sequences"));
        assertEquals("--min-pattern-length 0 must be 1 or more", refusal("analyze", "d", "--analysis", "sequences",
                "--operator", "aten::mm", "--min-pattern-length", "0"));
        assertEquals("aten::mm", parse("analyze", "d", "--analysis", "sequences", "--operator", "aten::mm")
                .options(AnalysisCommand.Analyze.class).operator());
        assertEquals(Host.ANALYSIS, parse("merge", ".", "-o", "job.json.gz").host());
        assertTrue(refusal("merge", ".").contains("-o"));
        assertEquals("-o '" + java.nio.file.Path.of("job.trace").toAbsolutePath() + "': merge writes Kineto JSON or"
                + " Perfetto's protobuf; name a *.json, *.json.gz, *.pftrace or *.pftrace.gz file",
                refusal("merge", ".", "-o", "job.trace"));
        assertTrue(refusal("merge", "/no/such/dir", "-o", "job.json").contains("'/no/such/dir' does not exist"));
    }

    @Test
    public void assembleSplitsFeatures() throws Exception {
        AssembleCommand a = parse("assemble", "--features", "core,device-cpu", "--out", "d")
                .options(AssembleCommand.class);
        assertEquals(List.of("core", "device-cpu"), a.features());
        assertTrue(refusal("assemble", "--out", "d").contains("missing required option: '--features=F'"));
    }

    @Test
    public void platformFlagsBelongToServeAndShellOnly() throws Exception {
        assertTrue(parse("serve", "--allow-shared-deploy-dir").options(ServeCommand.class).platform()
                .allowSharedDeployDir());
        assertEquals(Path.of("d").toAbsolutePath(), parse("shell", "--deploy-dir", "d")
                .options(ShellCommand.class).platform().deployDir());
        assertEquals("unknown flag '--allow-shared-deploy-dir' for 'run'; see 'vantage run --help'",
                refusal("run", "matmul", "--allow-shared-deploy-dir"));
        assertTrue(refusal("serve", "--jmx-port", "70000").contains("'70000' is out of range (1 to 65535)"));
    }

    @Test
    public void helpTextsRenderWithoutPicocliWarnings() throws Exception {
        java.io.PrintStream saved = System.err;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            Cli.help(null);
            for (String verb : Cli.verbs()) {
                Cli.help(verb);
            }
            Cli.help("profile");
            parse("profile", "1", "start", "--help");
            Cli.bashCompletion();
        } finally {
            System.setErr(saved);
        }
        assertEquals("", captured.toString(java.nio.charset.StandardCharsets.UTF_8));
    }

    @Test
    public void aVerbWithALineBreakInItIsRefusedInOneLine() {
        // found by fuzzing (CommandLineFuzzTest): the verb was named as it was, and the refusal took two lines
        assertEquals("unknown verb 'de\\rdev'; verbs: " + String.join(", ", Cli.verbs()), refusal("de\rdev"));
        assertEquals("unknown verb 'a\\nb\\u001bc'; verbs: " + String.join(", ", Cli.verbs()), refusal("a\nb\u001bc"));
    }

    @Test
    public void aWordStartingWithAnAtIsThatWordNotAFileOfArguments() throws Exception {
        // found by fuzzing: picocli expanded "@FILE" into the file's words, and "@." escaped as its
        // InitializationException instead of a refusal
        Path args = java.nio.file.Files.createTempFile("vantage-args", ".txt");
        try {
            java.nio.file.Files.writeString(args, "run\nmatmul\n");
            assertTrue(refusal(NO_ENV, "@" + args).startsWith("unknown verb '@" + args + "'"));
            assertTrue(refusal(NO_ENV, "@.").startsWith("unknown verb '@.'"));
        } finally {
            java.nio.file.Files.delete(args);
        }
    }
}
