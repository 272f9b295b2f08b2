package dev.vantage.analysis.report;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.vantage.trace.engine.read.SyntheticTrace;
import dev.vantage.trace.engine.read.TraceReader;
import dev.vantage.trace.engine.summary.TraceSummary;

/** The page: self-contained, its data readable back as JSON, and trace text unable to break out of it. */
public class ReportPageTest {

    /** An op name that would end the script element and start one of its own if it reached the page raw. */
    static final String HOSTILE = "</script><script>document.documentElement.setAttribute('data-pwned','1')"
            + "</script><!-- & \u2028 \"quoted\"";

    private static final Pattern DATA = Pattern.compile(
            "<script type=\"application/json\" id=\"" + ReportPage.DATA_ELEMENT + "\">(.*?)</script>", Pattern.DOTALL);

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    /** The page of a report of one trace. */
    static String page(Report report, Path file) throws IOException {
        StringWriter out = new StringWriter();
        ReportPage.write(report, ReportRun.of(List.of(file), report.traces(), report.analyses(), TraceReader::read),
                out);
        return out.toString();
    }

    /** Returns the report's embedded data, read back with a JSON parser. */
    static JsonNode data(String page) throws IOException {
        Matcher m = DATA.matcher(page);
        assertTrue("no data element", m.find());
        return new ObjectMapper().readTree(m.group(1));
    }

    private Path hostileFile() throws IOException {
        Path file = tmp.getRoot().toPath().resolve("hostile.trace.json");
        return SyntheticTrace.write(file, HOSTILE, false, false);
    }

    private TraceSummary hostileTrace() throws IOException {
        return TraceReader.summary(hostileFile());
    }

    @Test
    public void keepsAnOpNamedLikeMarkupInsideTheDataAsText() throws IOException {
        String page = page(Report.of("<b>title</b>", List.of(hostileTrace())), hostileFile());
        assertFalse("the name reached the page raw", page.contains("</script><script>document"));
        assertFalse(page.contains("<b>title</b>"));
        assertTrue(page.contains("&lt;b&gt;title&lt;/b&gt;"));
        // exactly the page's own scripts close: the error handler, the board's answers, the report's data, the
        // chart library and the board's script
        assertEquals(5, page.split("</script>", -1).length - 1);
        // and the board's answers hold it as text too: the Operators view's rows name it
        Matcher answers = Pattern.compile("<script type=\"application/json\" id=\""
                + dev.vantage.board.page.BoardPage.ANSWERS_ELEMENT + "\">(.*?)</script>", Pattern.DOTALL).matcher(page);
        assertTrue(answers.find());
        JsonNode operators = new ObjectMapper().readTree(answers.group(1)).get("/api/runs/trace-0/views/operators");
        String quoted = new ObjectMapper().writeValueAsString(HOSTILE);
        assertTrue(operators.toString(), operators.findValues("rows").stream().anyMatch(rows -> rows.toString()
                .contains(quoted)));
        JsonNode names = data(page).at("/traces/0/ops");
        boolean found = false;
        for (JsonNode op : names) {
            found |= op.get("name").asText().equals(HOSTILE);
        }
        assertTrue("the name is read back whole: " + names, found);
    }

    @Test
    public void inlinesTheChartLibraryAndLoadsNothingFromTheNetwork() throws IOException {
        String page = page(Report.of("t", List.of(hostileTrace())), hostileFile());
        assertTrue(page.contains("/* Apache ECharts 5.3.1"));
        assertTrue("the library's own code is inline", page.contains("echarts"));
        assertFalse(page.matches("(?s).*<script[^>]*\\ssrc=.*"));
        // the one link is the empty icon, a data: address, so the browser asks nothing for a favicon
        assertFalse(page.matches("(?s).*<link[^>]*href=\"(?!data:).*"));
        assertTrue(page.length() > 500_000);
    }

    @Test
    public void embedsTheSummaryItDrawsFrom() throws IOException {
        TraceSummary s = hostileTrace();
        JsonNode data = data(page(Report.of("t", List.of(s)), hostileFile()));
        assertEquals(1, data.get("schemaVersion").asInt());
        JsonNode step = data.at("/traces/0/steps/0");
        assertEquals(s.steps().get(0).kernelNanos(), step.get("kernelNanos").asLong());
        assertEquals(s.steps().get(0).startEpochNanos(), step.get("startEpochNanos").asLong());
        assertEquals(0, data.get("ranks").size());
    }

    @Test
    public void flagsTheSlowestRankWhenClearlyAboveTheMedian() {
        TraceSummary fast = new TraceSummary("r0.trace.json", 0, 3, 0, List.of(), List.of(), List.of(), List.of(),
                List.of(step(100), step(100)), List.of());
        TraceSummary alsoFast = new TraceSummary("r1.trace.json", 1, 3, 0, List.of(), List.of(), List.of(),
                List.of(), List.of(step(102), step(98)), List.of());
        TraceSummary slow = new TraceSummary("r2.trace.json", 2, 3, 0, List.of(), List.of(), List.of(), List.of(),
                List.of(step(150), step(130)), List.of());
        Report r = Report.of("dir", List.of(slow, fast, alsoFast));
        assertEquals(List.of(0, 1, 2), r.ranks().stream().map(RankStats::rank).toList());
        assertEquals(2, r.slowestRank());
        assertEquals(100, r.medianStepNanos(), 0);
        RankStats straggler = r.ranks().get(2);
        assertEquals(140, straggler.meanStepNanos(), 0);
        assertEquals(150, straggler.maxStepNanos());
        assertEquals(1.4, straggler.ratioToMedian(), 1e-9);
        assertTrue(straggler.straggler());
        assertFalse(r.ranks().get(0).straggler());

        Report even = Report.of("dir", List.of(fast, alsoFast));
        assertFalse("equal ranks have no straggler", even.ranks().stream().anyMatch(RankStats::straggler));

        // an even count of ranks: the median is the mean of the middle two, as SQL's median(), and every rank at
        // least Stragglers.RATIO times it is a straggler, not only the slowest
        TraceSummary alsoSlow = new TraceSummary("r3.trace.json", 3, 4, 0, List.of(), List.of(), List.of(),
                List.of(), List.of(step(125), step(125)), List.of());
        Report four = Report.of("dir", List.of(fast, alsoFast, slow, alsoSlow));
        assertEquals(112.5, four.medianStepNanos(), 0);
        assertEquals(List.of(false, false, true, true), four.ranks().stream().map(RankStats::straggler).toList());
        assertEquals(125 / 112.5, four.ranks().get(3).ratioToMedian(), 1e-12);
    }

    private static dev.vantage.trace.engine.summary.StepStats step(long duration) {
        return new dev.vantage.trace.engine.summary.StepStats(1, 0, duration, duration, 0, 0, 0, 0, 0, 0);
    }
}
