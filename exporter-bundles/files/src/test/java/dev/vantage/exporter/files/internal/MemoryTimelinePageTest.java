package dev.vantage.exporter.files.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assume.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.vantage.profiler.api.MemoryTimeline;
import dev.vantage.profiler.memory.MemoryCategory;

/**
 * The memory timeline page: its data read back with Jackson equals the timeline's, its chart is drawn by the
 * chart library {@code report} uses (inlined, nothing fetched), and headless Chromium renders it with no script
 * error (skipped when no Chromium is installed: {@code apt-get install chromium}).
 */
public class MemoryTimelinePageTest {

    private static final Pattern DATA = Pattern.compile(
            "<script type=\"application/json\" id=\"" + MemoryTimelineFiles.DATA_ELEMENT + "\">(.*?)</script>",
            Pattern.DOTALL);
    private static final Pattern ROOT = Pattern.compile("<html[^>]*>");

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private static MemoryTimeline timeline(String device) {
        int n = MemoryCategory.values().length;
        long[][] sizes = new long[3][n + 1];
        sizes[0][1 + MemoryCategory.PARAMETER.ordinal()] = 4 << 20;
        sizes[1][1 + MemoryCategory.PARAMETER.ordinal()] = 4 << 20;
        sizes[1][1 + MemoryCategory.ACTIVATION.ordinal()] = 1 << 20;
        sizes[2][1 + MemoryCategory.PARAMETER.ordinal()] = 4 << 20;
        return new MemoryTimeline(device, true, new long[] {1_000_000, 1_000_500, 1_002_000}, sizes,
                new long[] {8 << 20, 8 << 20, 10 << 20},
                new long[] {4 << 20, 5 << 20, 4 << 20}, new long[0][]);
    }

    private static String page(MemoryTimeline t) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        MemoryTimelineFiles.writeHtml(t, out);
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    public void embedsTheTimelineAsDataForTheReportsChartLibrary() throws Exception {
        String html = page(timeline("npu:0"));
        Matcher m = DATA.matcher(html);
        assertTrue(m.find());
        JsonNode d = new ObjectMapper().readTree(m.group(1));
        assertEquals("npu:0", d.get("device").asText());
        assertEquals(List.of(0.0, 0.5, 2.0), new ObjectMapper().convertValue(d.get("timesMs"), List.class));
        int parameter = MemoryCategory.PARAMETER.ordinal();
        assertEquals(MemoryCategory.PARAMETER.torchName(), d.get("categories").get(parameter).get("name").asText());
        assertEquals(4.0, d.get("mib").get(parameter).get(1).asDouble(), 0);
        assertEquals(1.0, d.get("mib").get(MemoryCategory.ACTIVATION.ordinal()).get(1).asDouble(), 0);
        assertEquals(10.0, d.get("reservedMib").get(2).asDouble(), 0);
        assertTrue("the chart library is inlined", html.contains("Apache ECharts 5.3.1")
                && html.contains("echarts.init("));
        assertFalse("nothing is fetched", html.contains("src=\"http") || html.contains("href=\"http"));
        assertTrue(html.contains("emulated device"));
    }

    @Test
    public void aDeviceNameCannotEndTheDataOrTheTitle() throws Exception {
        String html = page(timeline("</script><b>x"));
        assertFalse(html.contains("</script><b>x"));
        Matcher m = DATA.matcher(html);
        assertTrue(m.find());
        assertEquals("</script><b>x", new ObjectMapper().readTree(m.group(1)).get("device").asText());
    }

    @Test
    public void chromiumDrawsTheChartWithoutAScriptError() throws Exception {
        Path chromium = Path.of("/usr/bin/chromium");
        String env = System.getenv("CHROMIUM");
        if (env != null && !env.isBlank()) {
            chromium = Path.of(env);
        }
        assumeTrue("no Chromium installed (set CHROMIUM or apt-get install chromium)", Files.isExecutable(chromium));
        Path work = tmp.getRoot().toPath();
        Path page = work.resolve("t.memory-timeline.html");
        Files.writeString(page, page(timeline("npu:0")));
        Path dom = work.resolve("dom.html");
        Process p = new ProcessBuilder(chromium.toString(), "--headless", "--disable-gpu", "--no-sandbox",
                "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--user-data-dir=" + work.resolve("profile"), "--virtual-time-budget=10000", "--dump-dom",
                page.toUri().toString()).redirectOutput(dom.toFile()).redirectError(work.resolve("log").toFile())
                .start();
        assertTrue("chromium did not finish within 120 s", p.waitFor(120, TimeUnit.SECONDS));
        assertEquals(Files.readString(work.resolve("log")), 0, p.exitValue());
        Matcher root = ROOT.matcher(Files.readString(dom));
        assertTrue(root.find());
        assertTrue(root.group(), root.group().contains("data-vantage-page=\"rendered\""));
        // two categories held memory (parameters, activations) and the reserved line
        assertTrue(root.group(), root.group().contains("data-vantage-series=\"3\""));
        assertTrue("the chart drew its svg", Files.readString(dom).contains("<svg"));
    }
}
