package dev.vantage.board.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.vantage.board.api.BoardView;
import dev.vantage.board.internal.views.BuiltInViews;
import dev.vantage.board.page.BoardPage;

/**
 * The page {@code vantage report} writes from the board's views: every view the board offers a run is in it, with the
 * sections the view draws, and trace text cannot end its script element.
 */
public class BoardPageTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Test
    public void thePageHoldsEveryViewTheBoardOffersARunAsTheViewDrawsIt() throws Exception {
        AnalysedRun run = analysed("a</script><b>.pt.trace.json.gz");
        StringWriter out = new StringWriter();
        BoardPage.write("logs/</script>", List.of(run), Map.of("extra", Map.of("n", 1)), out);
        String html = out.toString();
        // exactly the page's own script elements end: no trace text closes one
        assertEquals(5, html.split("</script>", -1).length - 1);
        assertFalse(html.contains("<b>"));
        JsonNode answers = block(html, BoardPage.ANSWERS_ELEMENT);
        assertEquals(1, block(html, "extra").get("n").asInt());
        assertEquals("logs/</script>", answers.get("/api/runs").get("logdir").asText());
        assertEquals(run.name(), answers.get("/api/runs").get("runs").get(0).get("name").asText());
        JsonNode offered = answers.get("/api/runs/" + run.id() + "/views").get("views");
        List<BoardView> views = BuiltInViews.all();
        List<String> expected = views.stream().filter(v -> v.appliesTo(run)).map(BoardView::id).toList();
        assertEquals(expected, offered.findValuesAsText("id"));
        assertTrue(expected.containsAll(List.of("overview", "operators", "kernels", "timeline", "analyses")));
        for (BoardView v : views) {
            JsonNode answer = answers.get("/api/runs/" + run.id() + "/views/" + v.id());
            if (!v.appliesTo(run)) {
                assertEquals(v.id(), null, answer);
                continue;
            }
            assertEquals(JSON.readTree(JSON.writeValueAsString(v.render(run))), answer.get("sections"));
        }
    }

    @Test
    public void everyObjectOnThePageHasItsKeysInOrderSoTheSameTracesWriteTheSamePage() throws Exception {
        AnalysedRun run = analysed("t.pt.trace.json.gz");
        Map<String, Object> extra = new java.util.LinkedHashMap<>();
        extra.put("zeta", 1);
        extra.put("alpha", Map.of("y", 2, "x", 3));
        // a record with derived properties (isOperator, isDeviceWork), which reflection lists in no fixed order
        extra.put("op", run.summary().ops().get(0));
        StringWriter out = new StringWriter();
        BoardPage.write("logs", List.of(run), Map.of("extra", extra), out);
        String html = out.toString();
        // a map given in insertion order comes out in key order, so no map's own order reaches the page
        assertEquals(List.of("alpha", "op", "zeta"), fieldNames(block(html, "extra")));
        int[] objects = {0};
        walk(block(html, "extra"), objects);
        assertEquals(3, objects[0]);
        assertTrue(block(html, "extra").get("op").get("operator").isBoolean());
        // the views' answers, built with Map.of, whose order differs from one JVM to the next
        JsonNode answers = block(html, BoardPage.ANSWERS_ELEMENT);
        objects[0] = 0;
        walk(answers, objects);
        assertTrue("objects checked: " + objects[0], objects[0] > 50);
    }

    private static void walk(JsonNode node, int[] objects) {
        if (node.isObject()) {
            List<String> names = fieldNames(node);
            assertEquals(names.stream().sorted().toList(), names);
            objects[0]++;
        }
        node.elements().forEachRemaining(child -> walk(child, objects));
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new java.util.ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    @Test
    public void theBuiltInViewsAreEveryViewOfTheViewsPackage() throws IOException, URISyntaxException {
        Path dir = Path.of(BuiltInViews.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .resolve("dev/vantage/board/internal/views");
        Set<String> views = new TreeSet<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                String name = "dev.vantage.board.internal.views." + f.getFileName().toString().replace(".class", "");
                try {
                    Class<?> c = Class.forName(name);
                    if (BoardView.class.isAssignableFrom(c) && !c.isInterface()
                            && !java.lang.reflect.Modifier.isAbstract(c.getModifiers())) {
                        views.add(name);
                    }
                } catch (ClassNotFoundException e) {
                    fail(name);
                }
            }
        }
        assertEquals(views, BuiltInViews.all().stream().map(v -> v.getClass().getName())
                .collect(Collectors.toCollection(TreeSet::new)));
    }

    @Test
    public void aRunIdThatIsNotPlainIsRefused() throws Exception {
        AnalysedRun run = analysed("t.pt.trace.json.gz");
        try {
            BoardPage.write("t", List.of(run, run), Map.of(), new StringWriter());
            fail("two runs of one id");
        } catch (IllegalArgumentException e) {
            assertTrue(e.getMessage(), e.getMessage().contains(run.id()));
        }
    }

    /** The run of the board's sample trace, copied into a log directory under a name. */
    private AnalysedRun analysed(String name) throws Exception {
        Path root = tmp.getRoot().toPath().resolve("logs");
        RunsTest.copy(RunsTest.NS_TRACE, root.resolve(name));
        Runs runs = new Runs(new Logdir(root), 8, () -> 0L);
        return runs.analysed(runs.list().get(0));
    }

    private static JsonNode block(String html, String id) throws IOException {
        String open = "<script type=\"application/json\" id=\"" + id + "\">";
        int from = html.indexOf(open);
        assertTrue(id, from >= 0);
        from += open.length();
        return JSON.readTree(html.substring(from, html.indexOf("</script>", from)));
    }
}
