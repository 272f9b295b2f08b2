package dev.vantage.analysis.report;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assume.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import dev.vantage.trace.engine.read.SyntheticTrace;
import dev.vantage.trace.engine.read.TraceReader;
import dev.vantage.trace.engine.summary.TraceSummary;

/**
 * Opens reports in headless Chromium and reads the DOM it rendered: the page's script marks the root element
 * {@code data-vantage-report="rendered"} only when every chart drew, and {@code error} on any script error.
 * Skipped (JUnit Assume) when no Chromium is installed: set {@code CHROMIUM} to its path, or install it at
 * {@code /usr/bin/chromium} ({@code apt-get install chromium}).
 */
public class ReportChromiumTest {

    private static final Pattern ROOT = Pattern.compile("<html[^>]*>");

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    static Path chromium() {
        List<String> candidates = new ArrayList<>();
        String env = System.getenv("CHROMIUM");
        if (env != null && !env.isBlank()) {
            candidates.add(env);
        }
        candidates.addAll(List.of("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"));
        for (String c : candidates) {
            if (Files.isExecutable(Path.of(c))) {
                return Path.of(c);
            }
        }
        return null;
    }

    /** Loads a page in headless Chromium and returns the DOM after its scripts ran. */
    static String renderedDom(Path page, Path work) throws IOException, InterruptedException {
        Path chromium = chromium();
        assumeTrue("no Chromium installed (set CHROMIUM or apt-get install chromium)", chromium != null);
        Path dom = work.resolve("dom.html");
        Path log = work.resolve("chromium.log");
        Process p = new ProcessBuilder(chromium.toString(), "--headless", "--disable-gpu", "--no-sandbox",
                "--user-data-dir=" + work.resolve("profile"), "--virtual-time-budget=10000", "--dump-dom",
                page.toUri().toString())
                .redirectOutput(dom.toFile()).redirectError(log.toFile()).start();
        assertTrue("chromium did not finish within 120 s", p.waitFor(120, TimeUnit.SECONDS));
        assertEquals(Files.readString(log), 0, p.exitValue());
        return Files.readString(dom, StandardCharsets.UTF_8);
    }

    static String rootElement(String dom) {
        Matcher m = ROOT.matcher(dom);
        assertTrue(dom.substring(0, Math.min(500, dom.length())), m.find());
        return m.group();
    }

    @Test
    public void rendersEveryChartWithNoScriptErrorAndShowsHostileNamesAsText() throws Exception {
        Path work = tmp.getRoot().toPath();
        TraceSummary s = TraceReader.summary(SyntheticTrace.write(work.resolve("t.trace.json"),
                ReportPageTest.HOSTILE, false, false));
        Path page = work.resolve("report.html");
        Files.writeString(page, ReportPageTest.page(Report.of("synthetic", List.of(s))));
        String dom = renderedDom(page, work);
        String root = rootElement(dom);
        assertTrue(root, root.contains("data-vantage-report=\"rendered\""));
        // the synthetic trace has an ncclAllReduce kernel, so the Distributed view draws its chart too
        assertTrue("distributed, overview and memory charts: " + root, root.contains("data-vantage-charts=\"3\""));
        assertFalse("an op name ran as script: " + root, root.contains("data-pwned"));
        assertTrue("the name shows as text", dom.contains("&lt;/script&gt;&lt;script&gt;document"));
        assertTrue(dom.contains("id=\"ops-table\""));
        assertTrue(dom.contains("id=\"kernels-table\""));
    }

    @Test
    public void rendersThePerRankViewForSeveralTraces() throws Exception {
        Path work = tmp.getRoot().toPath();
        List<TraceSummary> ranks = new ArrayList<>();
        for (int r = 0; r < 3; r++) {
            TraceSummary s = TraceReader.summary(SyntheticTrace.write(work.resolve("r" + r + ".trace.json"), "op" + r,
                    false, false));
            ranks.add(new TraceSummary(s.source(), r, 3, s.events(), s.ops(), s.opsByShape(), s.kernels(),
                    s.kernelsByOp(), s.steps(), s.memory()));
        }
        Path page = work.resolve("ranks.html");
        Files.writeString(page, ReportPageTest.page(Report.of("ranks", ranks)));
        String dom = renderedDom(page, work);
        String root = rootElement(dom);
        assertTrue(root, root.contains("data-vantage-report=\"rendered\""));
        assertTrue("ranks, distributed, overview and memory charts: " + root,
                root.contains("data-vantage-charts=\"4\""));
        assertTrue(dom.contains("id=\"distributed-table\""));
        assertTrue(dom.contains("id=\"ranks-table\""));
        assertTrue(dom.contains("id=\"trace-select\""));
    }

    @Test
    public void showsTheDeviceAnalysesOfARealTwoRankJob() throws Exception {
        Path work = tmp.getRoot().toPath();
        Path job = Files.createDirectories(work.resolve("job"));
        for (String rank : List.of("sampled_rank-0.json.gz", "sampled_rank-1.json.gz")) {
            try (java.io.InputStream in = ReportChromiumTest.class.getResourceAsStream(
                    "/dev/vantage/trace/engine/device/hta/trace_filter/" + rank)) {
                Files.copy(in, job.resolve(rank));
            }
        }
        Path page = work.resolve("job.html");
        dev.vantage.analysis.VerbRun r = dev.vantage.analysis.VerbRun.verb("report", job.toString(), "-o",
                page.toString());
        assertEquals(r.err(), 0, r.code());
        String dom = renderedDom(page, work);
        String root = rootElement(dom);
        assertTrue(root, root.contains("data-vantage-report=\"rendered\""));
        assertTrue(dom.contains("id=\"device-analyses\""));
        for (String table : List.of("temporal", "kernel_types", "kernels", "launch_summary", "idle",
                "queue_length_summary", "gpu")) {
            assertTrue(table, dom.contains("id=\"analysis-" + table + "\""));
        }
        // the per-launch series stay with analyze; HTA's kernel_time of rank 0 is on the page
        assertFalse(dom.contains("id=\"analysis-launch\""));
        assertTrue(dom.contains(">600058<") || dom.contains(">600058.000<"));
        // in these tables a 2,400-character kernel name is cut
        String analyses = dom.substring(dom.indexOf("id=\"device-analyses\""));
        assertTrue(analyses.contains("void split_embedding_backward_codegen_rowwise_adagrad"));
        assertFalse(analyses.contains("float, float, float, long)</td>"));
        // the Overview shows the plugin's GPU summary of the rank on the page, as the engine computes it
        java.util.regex.Matcher shown = java.util.regex.Pattern.compile(", rank (\\d+) of ").matcher(dom);
        assertTrue(shown.find());
        String rank = shown.group(1);
        dev.vantage.trace.engine.device.GpuMetrics gpu;
        try (dev.vantage.trace.engine.AnalysedTrace t = dev.vantage.trace.engine.read.TraceReader.read(
                job.resolve("sampled_rank-" + rank + ".json.gz"))) {
            gpu = dev.vantage.trace.engine.device.GpuMetrics.of(Integer.parseInt(rank), t);
        }
        String overview = dom.substring(dom.indexOf("id=\"overview\""), dom.indexOf("id=\"operators\""));
        assertTrue(overview, overview.contains("id=\"gpu-summary\""));
        List<Object> row = gpu.table().get(0);
        assertTrue(overview, overview.contains(String.format(java.util.Locale.ROOT, ">%.2f %%<",
                100 * ((Number) row.get(2)).doubleValue())));
        assertTrue(overview, overview.contains(String.format(java.util.Locale.ROOT, ">%.2f %%<",
                ((Number) row.get(4)).doubleValue())));
        // and the advice on that rank, each rule with its evidence, as the engine gives it
        assertTrue(overview, overview.contains("id=\"advice\""));
        dev.vantage.trace.engine.device.Advice advice;
        try (dev.vantage.trace.engine.AnalysedTrace t = dev.vantage.trace.engine.read.TraceReader.read(
                job.resolve("sampled_rank-" + rank + ".json.gz"))) {
            int n = Integer.parseInt(rank);
            dev.vantage.trace.engine.device.DeviceWork w = dev.vantage.trace.engine.device.DeviceWork.of(t.data(),
                    false);
            advice = dev.vantage.trace.engine.device.Advice.of(n, t.data(), t.summary(""), gpu,
                    dev.vantage.trace.engine.device.Launches.of(n, w), dev.vantage.trace.engine.device.CriticalPath
                            .of(n, t.data(), w, dev.vantage.trace.engine.device.CriticalPath.DEFAULT_ANNOTATION, -1));
        }
        assertTrue(advice.items().size() >= 3);
        for (dev.vantage.trace.engine.device.Advice.Item i : advice.items()) {
            assertTrue(i.rule(), overview.contains(">" + i.rule() + "<"));
            String text = i.evidence().replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
            assertTrue(i.evidence(), overview.contains(">" + text + "<"));
        }
    }

    @Test
    public void marksThePageWhenAScriptFails() throws Exception {
        Path work = tmp.getRoot().toPath();
        TraceSummary s = TraceReader.summary(SyntheticTrace.write(work.resolve("t.trace.json"), "op", false, false));
        // the check must be able to fail: a page whose data is not JSON is marked as an error, not rendered
        String broken = ReportPageTest.page(Report.of("t", List.of(s)))
                .replaceFirst("(id=\"" + ReportPage.DATA_ELEMENT + "\">)\\{", "$1{oops");
        Path page = work.resolve("broken.html");
        Files.writeString(page, broken);
        String root = rootElement(renderedDom(page, work));
        assertTrue(root, root.contains("data-vantage-report=\"error\""));
        assertFalse(root, root.contains("rendered"));
    }
}
