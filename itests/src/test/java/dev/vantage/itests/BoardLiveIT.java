package dev.vantage.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Live capture from {@code vantage board}: a served workload in another process is listed, a capture started on it
 * from the board's API and from its page in Chromium is written into the log directory and appears in the runs list,
 * and a capture recording until stopped is stopped; a POST without the board's header is refused.
 */
public class BoardLiveIT {

    private static final Pattern PID = Pattern.compile(", pid (\\d+);");
    private static final Pattern URL = Pattern.compile("(http://\\S+)");
    private static final ObjectMapper JSON = new ObjectMapper();

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

            JsonNode listed = JSON.readTree(URI.create(base + "api/platforms").toURL());
            assertTrue(listed.toString(), listed.path("available").asBoolean());
            assertTrue(listed.toString(), listed.path("platforms").findValues("pid").stream()
                    .anyMatch(p -> p.asLong() == pid));

            // another site's page cannot send the header: without it nothing starts
            assertEquals(403, post(base + "api/platforms/" + pid + "/start?seconds=2", false).status);
            Answer started = post(base + "api/platforms/" + pid + "/start?seconds=2", true);
            assertEquals(started.body, 200, started.status);
            await(() -> runs(base).size() == 1, 30_000, "the capture listed");
            JsonNode run = runs(base).get(0);
            assertEquals("attach", run.path("tags").path("trigger").asText());
            assertTrue(run.toString(), run.path("name").asText().length() > 0);
            serve.awaitLine("written: " + logdir.resolve("live"));

            // until stopped, then stopped
            Answer open = post(base + "api/platforms/" + pid + "/start", true);
            assertEquals(open.body, 200, open.status);
            Answer stopped = post(base + "api/platforms/" + pid + "/stop", true);
            assertEquals(stopped.body, 200, stopped.status);
            assertTrue(stopped.body, JSON.readTree(stopped.body).path("answer").asText().contains("live-" + pid));
            await(() -> runs(base).size() == 2, 30_000, "the stopped capture listed");
            Answer again = post(base + "api/platforms/" + pid + "/stop", true);
            assertEquals(again.body, 409, again.status);

            // and from the page, in Chromium
            ChromeDriver driver = BoardIT.chromeOrNull(work.resolve("chromium"));
            if (driver == null) {
                return;
            }
            try {
                driver.get(base);
                await(() -> "2".equals(driver.findElement(By.tagName("html")).getAttribute("data-board-runs")), 15_000,
                        "the two runs listed");
                driver.findElement(By.id("live-find")).click();
                await(() -> !driver.findElements(By.cssSelector("#live-platforms tr[data-pid='" + pid + "']"))
                        .isEmpty(), 30_000, "the platform listed in the page");
                driver.findElement(By.cssSelector("#live-platforms tr[data-pid='" + pid
                        + "'] button[data-action='start']")).click();
                await(() -> ("start:" + pid).equals(driver.findElement(By.tagName("html"))
                        .getAttribute("data-board-live")), 15_000, "the capture started from the page");
                await(() -> "3".equals(driver.findElement(By.tagName("html")).getAttribute("data-board-runs")),
                        30_000, "the page's capture listed");
                assertEquals("console errors", List.of(), BoardIT.consoleErrors(driver));
            } finally {
                driver.quit();
            }
        }
    }

    private record Answer(int status, String body) {
    }

    private static Answer post(String url, boolean header) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create(url).toURL().openConnection();
        try {
            c.setRequestMethod("POST");
            if (header) {
                c.setRequestProperty("X-Vantage-Board", "1");
            }
            c.setDoOutput(true);
            c.getOutputStream().close();
            int status = c.getResponseCode();
            try (InputStream in = status < 400 ? c.getInputStream() : c.getErrorStream()) {
                return new Answer(status, in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
        } finally {
            c.disconnect();
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

    private static void await(BooleanSupplier condition, long millis, String what) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(what + " within " + millis + " ms");
            }
            Thread.sleep(100);
        }
    }
}
