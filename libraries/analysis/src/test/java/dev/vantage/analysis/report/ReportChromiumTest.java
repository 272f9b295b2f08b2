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
 * Opens reports in headless Chromium and reads the DOM it rendered: the board's script marks the root element
 * {@code data-board-view="<run>/<view>"} once a view drew (with {@code :error} when it could not), and
 * {@code data-board="error"} on any script error.
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
    static String renderedDom(Path page, Path work, String hash) throws IOException, InterruptedException {
        Path chromium = chromium();
        assumeTrue("no Chromium installed (set CHROMIUM or apt-get install chromium)", chromium != null);
        Path dom = work.resolve("dom.html");
        Path log = work.resolve("chromium.log");
        Process p = new ProcessBuilder(chromium.toString(), "--headless", "--disable-gpu", "--no-sandbox",
                "--user-data-dir=" + work.resolve("profile"), "--virtual-time-budget=10000", "--dump-dom",
                page.toUri() + hash)
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

    /** The DOM of the page with one run's view open, as a link to it opens it. */
    static String view(Path page, Path work, String run, String view) throws IOException, InterruptedException {
        return renderedDom(page, work, "#run=" + run + "&view=" + view);
    }

    /** The root element's attribute, or null. */
    static String attribute(String root, String name) {
        Matcher m = Pattern.compile("\\s" + name + "=\"([^\"]*)\"").matcher(root);
        return m.find() ? m.group(1) : null;
    }

    /** The view ids the page offers a run, from its embedded answers. */
    static List<String> views(Path page, String run) throws IOException {
        String html = Files.readString(page, StandardCharsets.UTF_8);
        String open = "id=\"" + dev.vantage.board.page.BoardPage.ANSWERS_ELEMENT + "\">";
        int from = html.indexOf(open) + open.length();
        com.fasterxml.jackson.databind.JsonNode answers = new com.fasterxml.jackson.databind.ObjectMapper().readTree(
                html.substring(from, html.indexOf("</script>", from)));
        return answers.get("/api/runs/" + run + "/views").get("views").findValuesAsText("id");
    }

    @Test
    public void drawsEveryViewWithNoScriptErrorAndShowsHostileNamesAsText() throws Exception {
        Path work = tmp.getRoot().toPath();
        Path file = SyntheticTrace.write(work.resolve("t.trace.json"), ReportPageTest.HOSTILE, false, false);
        TraceSummary s = TraceReader.summary(file);
        Path page = work.resolve("report.html");
        Files.writeString(page, ReportPageTest.page(Report.of("synthetic", List.of(s)), file));
        List<String> views = views(page, "trace-0");
        assertTrue(views.toString(), views.containsAll(List.of("overview", "operators", "kernels", "timeline",
                "memory", "communication")));
        for (String v : views) {
            String dom = view(page, work, "trace-0", v);
            String root = rootElement(dom);
            assertEquals(root, "ready", attribute(root, "data-board"));
            assertEquals(root, "trace-0/" + v, attribute(root, "data-board-view"));
            assertEquals(root, "true", attribute(root, "data-board-static"));
            assertFalse("an op name ran as script: " + root, root.contains("data-pwned"));
            if (v.equals("operators")) {
                assertTrue("the name shows as text", dom.contains("&lt;/script&gt;&lt;script&gt;document"));
                assertTrue(dom.contains("id=\"table-operators\""));
            }
            if (v.equals("overview") || v.equals("timeline") || v.equals("memory")) {
                assertTrue(v + ": " + root, Integer.parseInt(attribute(root, "data-board-charts")) >= 1);
            }
        }
        // with no view named, the page opens its first run's first view
        String root = rootElement(renderedDom(page, work, ""));
        assertEquals(root, "trace-0/overview", attribute(root, "data-board-view"));
    }

    @Test
    public void drawsTheDistributedViewForSeveralTraces() throws Exception {
        Path work = tmp.getRoot().toPath();
        List<TraceSummary> ranks = new ArrayList<>();
        List<Path> files = new ArrayList<>();
        for (int r = 0; r < 3; r++) {
            Path f = SyntheticTrace.write(work.resolve("r" + r + ".trace.json"), "op" + r, false, false);
            TraceSummary s = TraceReader.summary(f);
            files.add(f);
            ranks.add(new TraceSummary(s.source(), r, 3, s.events(), s.ops(), s.opsByShape(), s.kernels(),
                    s.kernelsByOp(), s.steps(), s.memory()));
        }
        Path page = work.resolve("ranks.html");
        Report report = Report.of("ranks", ranks);
        java.io.StringWriter out = new java.io.StringWriter();
        ReportPage.write(report, ReportRun.of(files, ranks, report.analyses(), TraceReader::read), out);
        Files.writeString(page, out.toString());
        String dom = view(page, work, "trace-1", "distributed");
        String root = rootElement(dom);
        assertEquals(root, "trace-1/distributed", attribute(root, "data-board-view"));
        assertEquals(root, "3", attribute(root, "data-board-runs"));
        assertTrue(dom.contains("id=\"table-ranks\""));
        assertTrue(dom.contains("id=\"timeline-merged-timeline\""));
        // the runs list names the three traces
        for (int r = 0; r < 3; r++) {
            assertTrue(dom.contains(">r" + r + ".trace.json<"));
        }
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
        // rank 0 is the list's first run
        String analyses = view(page, work, "trace-0", "analyses");
        assertEquals("trace-0/analyses", attribute(rootElement(analyses), "data-board-view"));
        for (String table : List.of("temporal", "idle", "launch_summary", "queue_length_summary")) {
            assertTrue(table, analyses.contains("id=\"table-" + table.replace('_', '-') + "\""));
        }
        // HTA's kernel_time of rank 0 is on the page
        assertTrue(analyses.contains(">600058<"));
        String kernels = view(page, work, "trace-0", "kernels");
        assertTrue(kernels.contains("void split_embedding_backward_codegen_rowwise_adagrad"));
        // the Overview shows the plugin's GPU summary of the rank as the engine computes it
        dev.vantage.trace.engine.device.GpuMetrics gpu;
        try (dev.vantage.trace.engine.AnalysedTrace t = dev.vantage.trace.engine.read.TraceReader.read(
                job.resolve("sampled_rank-0.json.gz"))) {
            gpu = dev.vantage.trace.engine.device.GpuMetrics.of(0, t);
        }
        String overview = view(page, work, "trace-0", "overview");
        assertTrue(overview, overview.contains("id=\"table-gpu\""));
        List<Object> row = gpu.table().get(0);
        for (int i : new int[] {2, 4}) {
            assertTrue(overview, overview.contains(">" + shown(((Number) row.get(i)).doubleValue()) + "<"));
        }
        // and the advice on that rank, each rule with its evidence, as the engine gives it
        assertTrue(overview, overview.contains("id=\"table-advice\""));
        dev.vantage.trace.engine.device.Advice advice;
        try (dev.vantage.trace.engine.AnalysedTrace t = dev.vantage.trace.engine.read.TraceReader.read(
                job.resolve("sampled_rank-0.json.gz"))) {
            dev.vantage.trace.engine.device.DeviceWork w = dev.vantage.trace.engine.device.DeviceWork.of(t.data(),
                    false);
            advice = dev.vantage.trace.engine.device.Advice.of(0, t.data(), t.summary(""), gpu,
                    dev.vantage.trace.engine.device.Launches.of(0, w), dev.vantage.trace.engine.device.CriticalPath
                            .of(0, t.data(), w, dev.vantage.trace.engine.device.CriticalPath.DEFAULT_ANNOTATION, -1));
        }
        assertTrue(advice.items().size() >= 3);
        for (dev.vantage.trace.engine.device.Advice.Item i : advice.items()) {
            assertTrue(i.rule(), overview.contains(">" + i.rule() + "<"));
            String text = i.evidence().replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
            assertTrue(i.evidence(), overview.contains(">" + text + "<"));
        }
    }

    /** A number as the page's tables show it: whole numbers as they are, others with three decimals. */
    private static String shown(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.format(java.util.Locale.ROOT, "%.3f", v);
    }

    @Test
    public void marksThePageWhenAScriptFails() throws Exception {
        Path work = tmp.getRoot().toPath();
        Path file = SyntheticTrace.write(work.resolve("t.trace.json"), "op", false, false);
        TraceSummary s = TraceReader.summary(file);
        // the check must be able to fail: a page whose answers are not JSON is marked as an error, not drawn
        String broken = ReportPageTest.page(Report.of("t", List.of(s)), file).replaceFirst("(id=\""
                + dev.vantage.board.page.BoardPage.ANSWERS_ELEMENT + "\">)\\{", "$1{oops");
        Path page = work.resolve("broken.html");
        Files.writeString(page, broken);
        String root = rootElement(renderedDom(page, work, ""));
        assertEquals(root, "error", attribute(root, "data-board"));
        assertEquals(root, null, attribute(root, "data-board-view"));
    }
}
