package dev.vantage.itests;

import static dev.vantage.itests.Distributions.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A board view written outside this repository: the bundle the view archetype's integration test generated and built
 * outside this repository's parent POM (longest-events-view) is dropped into the deploy directory of a running
 * {@code vantage board} from the full distribution. The view is then listed for a run (HTA's nanosecond PyTorch
 * trace) and answers with the trace's events as Jackson reads them from the file; removing the jar takes it away.
 * The plugin guide's view commands run verbatim, from generating the project to the copy into a board's deploy
 * directory.
 */
public class ViewArchetypeIT {

    private static final String VIEW = "longest-events";
    private static final String NS_TRACE = "/dev/vantage/trace/engine/device/hta/ns_resolution/"
            + "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz";
    private static final Pattern URL = Pattern.compile("(http://\\S+)");
    /** The Kineto categories the trace engine keeps as the event kinds of the same name. */
    private static final List<String> KINDS = List.of("cpu_op", "kernel", "gpu_memcpy", "gpu_memset");

    private final ObjectMapper json = new ObjectMapper();

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private static Path jar() {
        Path jar = Path.of(System.getProperty("archetype.view.jar", "missing"));
        assertTrue("archetype.view.jar: no " + jar + "; the view archetype's integration test builds it",
                Files.isRegularFile(jar));
        return jar;
    }

    @Test
    public void theGeneratedViewHotDeploysIntoARunningBoardShowsTheRunsEventsAndLeaves() throws Exception {
        Path logdir = tmp.newFolder("logs").toPath();
        Path deploy = tmp.newFolder("deploy").toPath();
        Path trace = logdir.resolve("rank-0.pt.trace.json.gz");
        try (InputStream in = ViewArchetypeIT.class.getResourceAsStream(NS_TRACE)) {
            assertNotNull(NS_TRACE, in);
            Files.copy(in, trace);
        }
        try (LauncherProcess board = LauncherProcess.start(Distributions.home("full"), "board", "--logdir",
                logdir.toString(), "--port", "0", "--deploy-dir", deploy.toString())) {
            String line = board.awaitLine("vantage board: serving");
            Matcher m = URL.matcher(line);
            assertTrue(line, m.find());
            String base = m.group(1);
            JsonNode runs = json.readTree(URI.create(base + "api/runs").toURL());
            assertEquals(runs.toString(), 1, runs.path("runs").size());
            String viewsUrl = base + "api/runs/" + runs.path("runs").get(0).path("id").asText() + "/views";
            List<String> before = BoardIT.views(json, viewsUrl);
            assertTrue(before.toString(), before.contains("overview") && !before.contains(VIEW));

            Files.copy(jar(), deploy.resolve("longest-events-view.jar"));
            await(() -> BoardIT.views(json, viewsUrl).contains(VIEW), 15_000, "the view deployed");
            checkAgainstTheFile(trace, viewsUrl + "/" + VIEW);

            Files.delete(deploy.resolve("longest-events-view.jar"));
            await(() -> !BoardIT.views(json, viewsUrl).contains(VIEW), 15_000, "the view removed");
            assertEquals(404, BoardIT.status(viewsUrl + "/" + VIEW));
            assertEquals(before, BoardIT.views(json, viewsUrl));
        }
    }

    /**
     * The view's answers against the trace read with Jackson: the events of each kind that maps one to one onto a
     * Kineto category, and the durations of the longest kernels when the page chooses kernels.
     */
    private void checkAgainstTheFile(Path trace, String viewUrl) throws IOException {
        JsonNode root;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(trace))) {
            root = json.readTree(in);
        }
        Map<String, Long> counts = new HashMap<>();
        List<Long> kernelNanos = new ArrayList<>();
        for (JsonNode e : root.path("traceEvents")) {
            if (!e.path("ph").asText().equals("X")) {
                continue;
            }
            counts.merge(e.path("cat").asText(), 1L, Long::sum);
            if (e.path("cat").asText().equals("kernel")) {
                // microseconds with the nanoseconds as decimals
                kernelNanos.add(Math.round(e.path("dur").asDouble() * 1000));
            }
        }
        kernelNanos.sort(Comparator.reverseOrder());
        assertTrue(counts.toString(), kernelNanos.size() > 100);

        Map<String, JsonNode> sections = sections(json.readTree(URI.create(viewUrl).toURL()));
        assertEquals(List.of("time-by-kind", "kinds", "choose-kind", "longest"), List.copyOf(sections.keySet()));
        Map<String, Long> shown = new HashMap<>();
        sections.get("kinds").path("rows").forEach(r -> shown.put(r.get(0).asText(), r.get(1).asLong()));
        for (String kind : KINDS) {
            assertEquals(kind + ": " + shown, counts.get(kind), shown.get(kind));
        }
        JsonNode longest = sections.get("longest").path("rows");
        assertEquals(100, longest.size());
        for (int r = 1; r < longest.size(); r++) {
            assertTrue("longest first: " + longest, longest.get(r - 1).get(4).asLong() >= longest.get(r).get(4)
                    .asLong());
        }
        assertTrue(sections.get("time-by-kind").path("chart").has("series"));

        // the page's choice: the kernels only
        JsonNode kernels = sections(json.readTree(URI.create(viewUrl + "?kind=kernel").toURL())).get("longest")
                .path("rows");
        assertEquals(100, kernels.size());
        for (int r = 0; r < kernels.size(); r++) {
            assertEquals(kernels.get(r).toString(), "kernel", kernels.get(r).get(1).asText());
            assertEquals(kernels.get(r).toString(), (long) kernelNanos.get(r), kernels.get(r).get(4).asLong());
        }
    }

    /**
     * The plugin guide's view commands (docs/plugin-guide.md, "A view of vantage board") run verbatim in bash, from a
     * directory holding the clone as {@code vantage/}, against the SDK the view archetype's integration test staged
     * (as {@link PluginGuideIT} runs the device's): generate, build with the view's test, a board on a folder with a
     * run (on a free port: {@code --port 0} appended to the guide's command) and the copy into its deploy directory.
     * The view is listed for the run; removing the jar takes it away.
     */
    @Test
    public void theGuidesViewCommandsRunVerbatim() throws Exception {
        List<List<String>> blocks = PluginGuideIT.blocks("## A view of `vantage board`");
        List<String> commands = blocks.get(0);
        assertEquals(commands.toString(), 4, commands.size());
        assertTrue(commands.get(2), commands.get(2).startsWith("vantage/vantage board "));

        Path work = tmp.newFolder("guide").toPath();
        Files.createSymbolicLink(work.resolve("vantage"), Paths.get("..").toAbsolutePath().normalize());
        Map<String, String> env = PluginGuideIT.mavenOf(PluginGuideIT.stagedSdk(work.resolve("home"),
                "archetype.view.repo", "vantage-view-archetype"));
        try (LauncherProcess generate = LauncherProcess.bash(work, env, commands.get(0))) {
            int code = generate.awaitExit(300);
            assertEquals(generate.output(), 0, code);
        }
        try (LauncherProcess build = LauncherProcess.bash(work, env, commands.get(1))) {
            int code = build.awaitExit(600);
            assertEquals(build.output(), 0, code);
            assertTrue(build.output(), build.output().contains("Tests run: ")
                    && !build.output().contains("Tests run: 0,"));
        }
        Path runs = Files.createDirectories(work.resolve("runs"));
        try (InputStream in = ViewArchetypeIT.class.getResourceAsStream(NS_TRACE)) {
            Files.copy(in, runs.resolve("rank-0.pt.trace.json.gz"));
        }
        try (LauncherProcess board = LauncherProcess.bash(work, env, commands.get(2) + " --port 0")) {
            String line = board.awaitLine("vantage board: serving");
            Matcher m = URL.matcher(line);
            assertTrue(line, m.find());
            JsonNode listed = json.readTree(URI.create(m.group(1) + "api/runs").toURL());
            assertEquals(listed.toString(), 1, listed.path("runs").size());
            String viewsUrl = m.group(1) + "api/runs/" + listed.path("runs").get(0).path("id").asText() + "/views";
            assertFalse(BoardIT.views(json, viewsUrl).contains(VIEW));
            try (LauncherProcess deploy = LauncherProcess.bash(work, env, commands.get(3))) {
                int code = deploy.awaitExit(60);
                assertEquals(deploy.output(), 0, code);
            }
            await(() -> BoardIT.views(json, viewsUrl).contains(VIEW), 15_000, "the view deployed");
            Map<String, JsonNode> sections = sections(json.readTree(URI.create(viewsUrl + "/" + VIEW).toURL()));
            assertEquals(100, sections.get("longest").path("rows").size());
            try (var jars = Files.list(work.resolve("deploy"))) {
                for (Path jar : (Iterable<Path>) jars::iterator) {
                    Files.delete(jar);
                }
            }
            await(() -> !BoardIT.views(json, viewsUrl).contains(VIEW), 15_000, "the view removed");
        }
    }

    /** The generated bundle implements a consumer type of the board's API: it resolves up to its next major. */
    @Test
    public void theGeneratedViewImportsTheBoardsApiUpToItsNextMajorVersion() throws IOException {
        String imports;
        try (JarFile j = new JarFile(jar().toFile())) {
            imports = j.getManifest().getMainAttributes().getValue("Import-Package");
            assertEquals("a view bundle exports nothing", null, j.getManifest().getMainAttributes()
                    .getValue("Export-Package"));
        }
        // the clauses are split at a comma before a package name, not at the one inside a version range
        String api = Arrays.stream(imports.split(",(?=[a-z])")).filter(i -> i.startsWith("dev.vantage.board.api;"))
                .findFirst().orElse(null);
        assertNotNull("Import-Package: " + imports, api);
        Matcher m = Pattern.compile("version=\"([^\"]+)\"").matcher(api);
        assertTrue(api, m.find() && SdkManifestIT.reachesNextMajor(m.group(1)));
    }

    private static Map<String, JsonNode> sections(JsonNode view) {
        Map<String, JsonNode> byId = new java.util.LinkedHashMap<>();
        view.path("sections").forEach(s -> byId.put(s.path("id").asText(), s));
        return byId;
    }
}
