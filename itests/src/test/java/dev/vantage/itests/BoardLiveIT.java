package dev.vantage.itests;

import static dev.vantage.itests.Distributions.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Live capture from {@code vantage board}: a served workload in another process is listed with its capture's state
 * (the board's own process is not), a capture started on it from the board's API, timed or until stopped, is written
 * into the log directory and appears in the runs list, and the same from the page in Chromium: the Live panel lists
 * the platform, its Start and Stop buttons capture, and the run appears. Requests without the board's header, or from
 * another site, and bad windows are refused before anything is asked of the platform.
 */
public class BoardLiveIT {

    private static final Pattern PID = Pattern.compile(", pid (\\d+);");
    private static final Pattern URL = Pattern.compile("(http://\\S+)");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    public void aCaptureStartedFromTheBoardOnAServedPlatformAppearsInItsList() throws Exception {
        Path work = Files.createTempDirectory(Paths.get("target").toAbsolutePath(), "it-board-live-");
        Path logdir = Files.createDirectories(work.resolve("logs"));
        Path home = Distributions.home("full");
        try (LauncherProcess serve = LauncherProcess.start(home, "serve", "--workload", "parallel-infer",
                "--threads", "2");
                LauncherProcess board = LauncherProcess.start(home, "board", "--logdir", logdir.toString(),
                        "--port", "0")) {
            Matcher m = PID.matcher(serve.awaitLine("serving parallel-infer on cpu:0 with 2 threads"));
            assertTrue(m.find());
            long pid = Long.parseLong(m.group(1));
            Matcher u = URL.matcher(board.awaitLine("vantage board: serving"));
            assertTrue(u.find());
            String base = u.group(1);
            String platforms = base + "api/platforms";
            String one = platforms + "/" + pid;

            // listed, idle, and the board itself is not
            assertEquals(403, request("GET", platforms, false, null).status);
            JsonNode listed = JSON.readTree(request("GET", platforms, true, null).body);
            assertTrue(listed.toString(), listed.path("available").asBoolean());
            assertEquals(logdir.resolve("live").toString(), listed.path("captures").asText());
            List<Long> pids = listed.path("platforms").findValues("pid").stream().map(JsonNode::asLong).toList();
            assertTrue(listed.toString(), pids.contains(pid));
            assertFalse(listed.toString(), pids.contains(board.process.pid()));
            assertEquals("idle", capture(one));

            // refused before the platform is asked: another site's page, a bad window, the board's own process
            assertEquals(403, request("POST", one + "/start?seconds=2", false, null).status);
            assertEquals(403, request("POST", one + "/start?seconds=2", true, "http://evil.example").status);
            Answer bad = request("POST", one + "/start?seconds=0", true, null);
            assertEquals(bad.body, 422, bad.status);
            assertEquals(422, request("POST", one + "/start?dir=/tmp", true, null).status);
            assertEquals(422, request("POST", platforms + "/" + board.process.pid() + "/start", true, null).status);
            assertEquals(405, request("GET", one + "/start", true, null).status);
            assertEquals("idle", capture(one));

            // a timed capture: recording, then written into the log directory and listed
            Answer started = request("POST", one + "/start?seconds=3", true, null);
            assertEquals(started.body, 200, started.status);
            // recording, or waiting for the workload's next step to begin
            assertTrue(List.of("waiting", "recording").contains(capture(one)));
            await(() -> runs(base).size() == 1, 30_000, "the capture listed");
            JsonNode run = runs(base).get(0);
            assertEquals("attach", run.path("tags").path("trigger").asText());
            assertTrue(run.toString(), run.path("name").asText().length() > 0);
            serve.awaitLine("written: " + logdir.resolve("live"));
            await(() -> "idle".equals(capture(one)), 15_000, "the platform idle again");

            // until stopped, then stopped
            Answer open = request("POST", one + "/start", true, null);
            assertEquals(open.body, 200, open.status);
            Answer twice = request("POST", one + "/start", true, null);
            assertEquals(twice.body, 409, twice.status);
            assertTrue(twice.body, JSON.readTree(twice.body).path("error").asText().contains("a capture is already"));
            Answer stopped = request("POST", one + "/stop", true, null);
            assertEquals(stopped.body, 200, stopped.status);
            assertTrue(stopped.body, JSON.readTree(stopped.body).path("answer").asText()
                    .startsWith(logdir.resolve("live").toString()));
            assertEquals("idle", capture(one));
            await(() -> runs(base).size() == 2, 30_000, "the stopped capture listed");
            Answer again = request("POST", one + "/stop", true, null);
            assertEquals(again.body, 409, again.status);

            // and from the page, in Chromium
            ChromeDriver driver = BoardIT.chromeOrNull(work.resolve("chromium"));
            if (driver == null) {
                return;
            }
            try {
                driver.get(base);
                await(() -> "2".equals(attribute(driver, "data-board-runs")), 15_000, "the two runs listed");
                driver.findElement(By.id("live-find")).click();
                String row = "#live-platforms tr[data-pid='" + pid + "']";
                await(() -> "idle".equals(rowCapture(driver, row)), 30_000, "the platform listed as idle");
                assertTrue(driver.findElements(By.cssSelector("#live-platforms tr[data-pid='"
                        + board.process.pid() + "']")).isEmpty());
                choose(driver, "until-stopped");
                driver.findElement(By.cssSelector(row + " button[data-action='start']")).click();
                await(() -> ("start:" + pid).equals(attribute(driver, "data-board-live")), 15_000,
                        "the capture started from the page");
                await(() -> "recording".equals(rowCapture(driver, row)), 15_000, "the row recording");
                // for docs/board.md: the panel as it shows a capture recording
                driver.executeScript("var p = document.getElementById('runs-panel'); p.scrollLeft = 0;"
                        + " document.getElementById('live').scrollIntoView();");
                Path shot = Paths.get("target", "board-screenshots", "live.png");
                Files.createDirectories(shot.getParent());
                Files.write(shot, driver.getScreenshotAs(OutputType.BYTES));
                assertNull(driver.findElement(By.cssSelector(row + " button[data-action='stop']")).getAttribute(
                        "disabled"));
                assertEquals("true", driver.findElement(By.cssSelector(row + " button[data-action='start']"))
                        .getAttribute("disabled"));
                driver.findElement(By.cssSelector(row + " button[data-action='stop']")).click();
                await(() -> ("stop:" + pid).equals(attribute(driver, "data-board-live")), 30_000,
                        "the capture stopped from the page");
                await(() -> "idle".equals(rowCapture(driver, row)), 15_000, "the row idle again");
                await(() -> "3".equals(attribute(driver, "data-board-runs")), 30_000, "the page's capture listed");

                // a refusal is a line in the panel, not an error page
                assertEquals("true", driver.findElement(By.cssSelector(row + " button[data-action='stop']"))
                        .getAttribute("disabled"));
                choose(driver, "seconds");
                WebElement amount = driver.findElement(By.id("live-amount"));
                amount.clear();
                amount.sendKeys("7200");
                driver.findElement(By.cssSelector(row + " button[data-action='start']")).click();
                await(() -> ("start:" + pid + ":error").equals(attribute(driver, "data-board-live")), 15_000,
                        "the long capture refused");
                assertTrue(driver.findElement(By.id("live-note")).getText(),
                        driver.findElement(By.id("live-note")).getText().contains("seconds: a whole number from 1"));
                assertEquals("ready", attribute(driver, "data-board"));
                assertEquals("console errors", List.of(), BoardIT.consoleErrors(driver).stream()
                        .filter(e -> !e.contains("/api/platforms/" + pid + "/start")).toList());
            } finally {
                driver.quit();
            }
        }
    }

    /** Chooses the capture window in the page, as a user's choice does (the change event included). */
    private static void choose(ChromeDriver driver, String window) {
        driver.executeScript("var s = document.getElementById('live-window'); s.value = arguments[0];"
                + " s.dispatchEvent(new Event('change'));", window);
    }

    private static String attribute(ChromeDriver driver, String name) {
        return driver.findElement(By.tagName("html")).getAttribute(name);
    }

    private static String rowCapture(ChromeDriver driver, String row) {
        List<WebElement> found = driver.findElements(By.cssSelector(row));
        return found.isEmpty() ? null : found.get(0).getAttribute("data-capture");
    }

    /** A platform's capture state as the board's API gives it. */
    private static String capture(String url) {
        try {
            Answer a = request("GET", url, true, null);
            assertEquals(a.body, 200, a.status);
            return JSON.readTree(a.body).path("capture").asText();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private record Answer(int status, String body) {
    }

    /** A request as the board's page sends it (with the header) or as another site's page could (without). */
    private static Answer request(String method, String url, boolean header, String origin) throws IOException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60))
                .method(method, HttpRequest.BodyPublishers.noBody());
        if (header) {
            b.header("X-Vantage-Board", "1");
        }
        if (origin != null) {
            b.header("Origin", origin);
        }
        try {
            HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
            return new Answer(r.statusCode(), r.body());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    private static List<JsonNode> runs(String base) {
        try {
            List<JsonNode> out = new ArrayList<>();
            JSON.readTree(URI.create(base + "api/runs").toURL()).path("runs").forEach(out::add);
            return out;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
