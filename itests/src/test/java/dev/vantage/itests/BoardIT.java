package dev.vantage.itests;

import static dev.vantage.itests.Distributions.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assume.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.vantage.trace.engine.read.TraceReader;
import dev.vantage.trace.engine.summary.TraceSummary;

/**
 * {@code vantage board} from the full distribution, as a user runs it, in a real Chromium driven by its ChromeDriver:
 * a log directory with a Vantage run and HTA's nanosecond PyTorch trace shows both, every view of both renders without
 * an error on the page or in the console, the Overview's step times are the trace engine's, and a trace written into
 * the directory while the board is up appears in the list. Skipped, saying what to install, where Chromium or
 * ChromeDriver is missing ({@code .ci/run} installs both).
 */
public class BoardIT {

    private static final Pattern URL = Pattern.compile("(http://\\S+)");
    private static final String NS_TRACE = "/dev/vantage/trace/engine/device/hta/ns_resolution/"
            + "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz";
    private static final String ADVICE_TRACE = "/dev/vantage/trace/engine/device/plugin/advice.pt.trace.json";
    private static final String HTA_JOB = "/dev/vantage/trace/engine/device/hta/trace_filter/";

    static Path executable(String variable, String... candidates) {
        String env = System.getenv(variable);
        List<String> all = new ArrayList<>();
        if (env != null && !env.isBlank()) {
            all.add(env);
        }
        all.addAll(List.of(candidates));
        return all.stream().map(Paths::get).filter(Files::isExecutable).findFirst().orElse(null);
    }

    private static Path copy(String resource, Path to) throws IOException {
        Files.createDirectories(to.getParent());
        try (InputStream in = BoardIT.class.getResourceAsStream(resource)) {
            assertNotNull(resource, in);
            Files.copy(in, to);
        }
        return to;
    }

    private static ChromeDriver chrome(Path profile) {
        Path chromium = executable("CHROMIUM", "/usr/bin/chromium", "/usr/bin/chromium-browser");
        Path driver = executable("CHROMEDRIVER", "/usr/bin/chromedriver");
        if (chromium == null || driver == null) {
            String why = "browser tests skipped: no " + (chromium == null ? "Chromium" : "ChromeDriver")
                    + " (apt-get install chromium chromium-driver, or set CHROMIUM and CHROMEDRIVER)";
            System.err.println("vantage: " + why);
            assumeTrue(why, false);
        }
        ChromeOptions options = new ChromeOptions();
        options.setBinary(chromium.toFile());
        // nothing but the board: no background connections, which this machine's closed network refuses
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-quic", "--no-first-run", "--window-size=1400,1000", "--user-data-dir=" + profile);
        options.setCapability("goog:loggingPrefs", Map.of(LogType.BROWSER, "ALL"));
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(driver.toFile())
                .usingAnyFreePort().build();
        return new ChromeDriver(service, options);
    }

    private static String url(LauncherProcess board) throws InterruptedException {
        String line = board.awaitLine("vantage board: serving");
        Matcher m = URL.matcher(line);
        assertTrue(line, m.find());
        return m.group(1);
    }

    /** The runs list's rows, read inside the page: each run's id and name. */
    @SuppressWarnings("unchecked")
    private static List<List<String>> listed(ChromeDriver driver) {
        return (List<List<String>>) driver.executeScript("return Array.from("
                + "document.querySelectorAll('#runs tbody tr')).map(function (r) {"
                + " return [r.getAttribute('data-run'), r.cells[0].textContent]; });");
    }

    /**
     * Opens a run and each of its views in turn; each must draw every chart it has and show no error. Returns
     * {@code name/view} for each.
     */
    private static List<String> everyView(ChromeDriver driver, String runId, String name) throws Exception {
        click(driver, "#runs tbody tr[data-run='" + runId + "']");
        await(() -> attribute(driver, "data-board-view") != null
                && attribute(driver, "data-board-view").startsWith(runId + "/"), 60_000, "the first view of " + name);
        List<String> views = driver.findElements(By.cssSelector("#tabs button")).stream()
                .map(b -> b.getAttribute("data-view")).toList();
        assertTrue(name + ": " + views, views.containsAll(List.of("overview", "operators")));
        List<String> shown = new ArrayList<>();
        for (String view : views) {
            open(driver, runId, view);
            assertTrue(name + " " + view, driver.findElements(By.cssSelector("#view .error")).isEmpty());
            int charts = Integer.parseInt(attribute(driver, "data-board-charts"));
            long drawn = driver.findElements(By.cssSelector("#view .chart")).stream()
                    .filter(c -> !c.findElements(By.cssSelector("svg path")).isEmpty()).count();
            assertEquals(name + " " + view + ": every chart drew", charts, drawn);
            shown.add(name + "/" + view);
        }
        return shown;
    }

    /** Opens one view of the open run by its tab and waits until it has drawn. */
    private static void open(ChromeDriver driver, String runId, String view) throws Exception {
        String showing = attribute(driver, "data-board-view");
        if (showing == null || !showing.startsWith(runId + "/")) {
            click(driver, "#runs tbody tr[data-run='" + runId + "']");
            await(() -> attribute(driver, "data-board-view") != null
                    && attribute(driver, "data-board-view").startsWith(runId + "/"), 60_000, "run " + runId);
        }
        click(driver, "#tabs button[data-view='" + view + "']");
        await(() -> (runId + "/" + view).equals(attribute(driver, "data-board-view")), 30_000, runId + " " + view);
        // the run's critical paths are computed after its first answer: the view is drawn again once they are
        await(() -> attribute(driver, "data-board-pending") == null, 60_000, runId + " " + view + " complete");
    }

    /** Keeps what the page shows, for docs/board.md. */
    private static void screenshot(ChromeDriver driver, String name) throws IOException {
        Path shot = Paths.get("target", "board-screenshots", name);
        Files.createDirectories(shot.getParent());
        Files.write(shot, driver.getScreenshotAs(OutputType.BYTES));
    }

    /** Clicks an element inside the page, found and clicked in one step (the runs list is redrawn as runs change). */
    private static void click(ChromeDriver driver, String selector) {
        Object found = driver.executeScript("var e = document.querySelector(arguments[0]); if (e) { e.click(); }"
                + " return e !== null;", selector);
        assertEquals(selector, Boolean.TRUE, found);
    }

    private static String attribute(ChromeDriver driver, String name) {
        return driver.findElement(By.tagName("html")).getAttribute(name);
    }

    @Test
    public void everyViewOfAVantageRunAndAPyTorchTraceRendersAndARunWrittenLaterAppears() throws Exception {
        Path work = Files.createTempDirectory(Paths.get("target").toAbsolutePath(), "it-board-");
        Path logdir = Files.createDirectories(work.resolve("logs"));
        Path torch = copy(NS_TRACE, logdir.resolve("hta/rank-0.pt.trace.json.gz"));
        // HTA's two-rank training job, named as HTA names its traces (*.json.gz)
        copy(HTA_JOB + "sampled_rank-0.json.gz", logdir.resolve("job/rank-0.json.gz"));
        copy(HTA_JOB + "sampled_rank-1.json.gz", logdir.resolve("job/rank-1.json.gz"));
        LauncherProcess.Result run = LauncherProcess.run(Distributions.home("full"), "run", "matmul", "--profile",
                "--profile-dir", logdir.resolve("vantage_profiles").toString());
        assertEquals(run.err(), 0, run.exitCode());
        TraceSummary engine = TraceReader.summary(torch);

        try (LauncherProcess board = LauncherProcess.start(Distributions.home("full"), "board", "--logdir",
                logdir.toString(), "--port", "0")) {
            String url = url(board);
            assertTrue(url, url.startsWith("http://127.0.0.1:"));
            ChromeDriver driver = chrome(work.resolve("chromium"));
            try {
                driver.get(url);
                await(() -> "4".equals(attribute(driver, "data-board-runs")), 15_000, "four runs listed");
                List<String> shown = new ArrayList<>();
                // the list refreshes every two seconds: rows are read and clicked inside the page, in one step
                List<List<String>> listed = listed(driver);
                for (List<String> entry : listed) {
                    shown.addAll(everyView(driver, entry.get(0), entry.get(1)));
                }
                // HTA's trace: a CUDA rank with kernels; its two-rank job: a Distributed view; the CPU run: host only
                assertTrue(shown.toString(), shown.containsAll(List.of("hta/rank-0.pt.trace.json.gz/overview",
                        "hta/rank-0.pt.trace.json.gz/operators", "hta/rank-0.pt.trace.json.gz/timeline",
                        "hta/rank-0.pt.trace.json.gz/kernels", "hta/rank-0.pt.trace.json.gz/analyses",
                        "job/rank-0.json.gz/distributed", "job/rank-0.json.gz/communication",
                        "job/rank-1.json.gz/distributed")));
                assertEquals("ready", attribute(driver, "data-board"));

                // the Overview's step times are the engine's
                String torchId = listed.stream().filter(e -> e.get(1).equals("hta/rank-0.pt.trace.json.gz"))
                        .findFirst().orElseThrow().get(0);
                open(driver, torchId, "overview");
                List<WebElement> steps = driver.findElements(By.cssSelector("#table-steps tbody tr"));
                assertEquals(engine.steps().size(), steps.size());
                for (int s = 0; s < steps.size(); s++) {
                    List<WebElement> cells = steps.get(s).findElements(By.tagName("td"));
                    assertEquals(String.valueOf(engine.steps().get(s).step()), cells.get(0).getText());
                    assertEquals(String.format(Locale.ROOT, "%.3f", engine.steps().get(s).durationNanos() / 1000.0),
                            cells.get(1).getText());
                }
                screenshot(driver, "overview.png");
                open(driver, torchId, "timeline");
                screenshot(driver, "timeline.png");

                // the PyTorch trace compared with the Vantage run, as vantage compare compares them
                String vantageId = listed.stream().filter(e -> !e.get(1).contains(".json")).findFirst().orElseThrow()
                        .get(0);
                click(driver, "#runs tbody tr[data-run='" + torchId + "']");
                await(() -> attribute(driver, "data-board-view") != null
                        && attribute(driver, "data-board-view").startsWith(torchId + "/"), 30_000, "the trace opened");
                driver.executeScript("var s = document.getElementById('compare-with'); s.value = arguments[0];"
                        + " s.dispatchEvent(new Event('change'));", vantageId);
                String compared = "compare:" + torchId + "/" + vantageId;
                await(() -> compared.equals(attribute(driver, "data-board-view")), 30_000, "the comparison");
                TraceSummary vantage = TraceReader.summary(Files.list(logdir.resolve("vantage_profiles"))
                        .filter(p -> p.getFileName().toString().endsWith(".trace.json.gz")).findFirst().orElseThrow());
                // one row per paired position, and their mean
                assertEquals(Math.max(engine.steps().size(), vantage.steps().size()) + 1,
                        driver.findElements(By.cssSelector("#table-compare-steps tbody tr")).size());
                assertTrue(driver.findElements(By.cssSelector("#view .error")).isEmpty());

                // a trace written into the directory while the board is up
                long start = System.nanoTime();
                copy(ADVICE_TRACE, logdir.resolve("later/plugins/profile/run1/worker0.pt.trace.json"));
                await(() -> "5".equals(attribute(driver, "data-board-runs")), 5_000, "the run written later listed");
                long millis = (System.nanoTime() - start) / 1_000_000;
                assertTrue(millis + " ms", millis <= 5_000);
                // and every view of it: the TensorBoard plugin's trace with a memory curve
                String later = listed(driver).stream().filter(e -> e.get(1).startsWith("later/")).findFirst()
                        .orElseThrow().get(0);
                List<String> laterViews = everyView(driver, later, "later");
                assertTrue(laterViews.toString(), laterViews.contains("later/memory"));

                assertEquals("console errors", List.of(), consoleErrors(driver));
            } finally {
                driver.quit();
            }
        }
    }

    @Test
    public void aBoardOnAnyAddressAnswersOnlyRequestsWithItsToken() throws Exception {
        Path logdir = Files.createDirectories(Files.createTempDirectory(Paths.get("target").toAbsolutePath(),
                "it-board-").resolve("logs"));
        copy(ADVICE_TRACE, logdir.resolve("w.pt.trace.json"));
        try (LauncherProcess board = LauncherProcess.start(Distributions.home("full"), "board", "--logdir",
                logdir.toString(), "--host", "0.0.0.0", "--port", "0")) {
            String url = url(board);
            Matcher m = Pattern.compile(":(\\d+)/\\?token=([0-9a-f]{48})$").matcher(url);
            assertTrue(url, m.find());
            String base = "http://127.0.0.1:" + m.group(1);
            assertEquals(403, status(base + "/api/runs"));
            assertEquals(403, status(base + "/"));
            assertEquals(403, status(base + "/api/runs?token=" + "0".repeat(48)));
            assertEquals(200, status(base + "/api/runs?token=" + m.group(2)));
            assertEquals(200, status(base + "/?token=" + m.group(2)));
        }
    }

    @Test
    public void aViewBundleDroppedIntoTheDeployDirectoryAddsItsViewAndRemovingItTakesItAway() throws Exception {
        Path work = Files.createTempDirectory(Paths.get("target").toAbsolutePath(), "it-board-");
        Path logdir = Files.createDirectories(work.resolve("logs"));
        Path deploy = Files.createDirectories(work.resolve("deploy"));
        copy("/dev/vantage/itests/onnxruntime_profile_mlp.json", logdir.resolve("onnxruntime_profile_mlp.json"));
        Path jar;
        try (var jars = Files.list(Paths.get("target/view-bundles"))) {
            jar = jars.filter(p -> p.getFileName().toString().startsWith("device-onnxruntime-view")).findFirst()
                    .orElseThrow();
        }
        ObjectMapper json = new ObjectMapper();
        try (LauncherProcess board = LauncherProcess.start(Distributions.home("full"), "board", "--logdir",
                logdir.toString(), "--port", "0", "--deploy-dir", deploy.toString())) {
            String base = url(board);
            JsonNode runs = json.readTree(URI.create(base + "api/runs").toURL());
            assertEquals(1, runs.path("runs").size());
            String id = runs.path("runs").get(0).path("id").asText();
            String viewsUrl = base + "api/runs/" + id + "/views";
            assertEquals(List.of("overview", "operators", "kernels", "timeline", "analyses"), views(json, viewsUrl));

            Files.copy(jar, deploy.resolve(jar.getFileName()));
            await(() -> views(json, viewsUrl).contains("onnxruntime-nodes"), 15_000, "the view deployed");
            JsonNode view = json.readTree(URI.create(viewsUrl + "/onnxruntime-nodes").toURL());
            JsonNode nodes = null;
            for (JsonNode s : view.path("sections")) {
                if (s.path("id").asText().equals("nodes")) {
                    nodes = s;
                }
            }
            assertNotNull(view.toString(), nodes);
            // ONNX Runtime's file: three nodes, each run twice
            assertEquals(3, nodes.path("rows").size());
            assertEquals("fused fc1/MatMulAddFusion", nodes.path("rows").get(0).get(0).asText());
            assertEquals(2, nodes.path("rows").get(0).get(3).asInt());
            // and in the browser: the run has the view's tab, which draws its table, with no console error
            ChromeDriver driver = chromeOrNull(work.resolve("chromium"));
            try {
                if (driver != null) {
                    driver.get(base);
                    await(() -> "1".equals(attribute(driver, "data-board-runs")), 15_000, "the run listed");
                    open(driver, id, "onnxruntime-nodes");
                    List<String> firstColumn = driver.findElements(
                            By.cssSelector("#table-nodes tbody tr td:first-child")).stream().map(WebElement::getText)
                            .toList();
                    assertEquals(3, firstColumn.size());
                    assertTrue(firstColumn.toString(), firstColumn.contains("fused fc1/MatMulAddFusion"));
                    assertEquals("console errors", List.of(), consoleErrors(driver));
                }

                Files.delete(deploy.resolve(jar.getFileName()));
                await(() -> !views(json, viewsUrl).contains("onnxruntime-nodes"), 15_000, "the view removed");
                assertEquals(404, status(viewsUrl + "/onnxruntime-nodes"));
                if (driver != null) {
                    // the run opened again has no such tab
                    driver.navigate().refresh();
                    await(() -> "1".equals(attribute(driver, "data-board-runs")), 15_000, "the run listed again");
                    click(driver, "#runs tbody tr[data-run='" + id + "']");
                    await(() -> attribute(driver, "data-board-view") != null, 30_000, "the run opened again");
                    assertTrue(driver.findElements(By.cssSelector("#tabs button[data-view='onnxruntime-nodes']"))
                            .isEmpty());
                    assertEquals(5, driver.findElements(By.cssSelector("#tabs button")).size());
                }
            } finally {
                if (driver != null) {
                    driver.quit();
                }
            }
        }
    }

    /** Chromium through ChromeDriver when both are installed, else null (the test's API checks still run). */
    static ChromeDriver chromeOrNull(Path profile) {
        if (executable("CHROMIUM", "/usr/bin/chromium", "/usr/bin/chromium-browser") == null
                || executable("CHROMEDRIVER", "/usr/bin/chromedriver") == null) {
            System.err.println("vantage: the deployed view is checked through the board's API only: no Chromium"
                    + " and ChromeDriver (apt-get install chromium chromium-driver)");
            return null;
        }
        return chrome(profile);
    }

    /** The browser's console messages of level SEVERE. */
    static List<String> consoleErrors(ChromeDriver driver) {
        List<String> errors = new ArrayList<>();
        for (LogEntry e : driver.manage().logs().get(LogType.BROWSER)) {
            if (e.getLevel().intValue() >= java.util.logging.Level.SEVERE.intValue()) {
                errors.add(e.getMessage());
            }
        }
        return errors;
    }

    /** The ids of the views the board lists at {@code url}. */
    static List<String> views(ObjectMapper json, String url) {
        try {
            List<String> ids = new ArrayList<>();
            json.readTree(URI.create(url).toURL()).path("views").forEach(v -> ids.add(v.path("id").asText()));
            return ids;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The HTTP status of a GET of {@code url}. */
    static int status(String url) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create(url).toURL().openConnection();
        try {
            return c.getResponseCode();
        } finally {
            c.disconnect();
        }
    }
}
