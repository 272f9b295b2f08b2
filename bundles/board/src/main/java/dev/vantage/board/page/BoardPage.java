package dev.vantage.board.page;

import java.io.IOException;
import java.io.InputStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.vantage.board.api.BoardRun;
import dev.vantage.board.api.BoardView;
import dev.vantage.board.api.ViewSection;
import dev.vantage.board.internal.Answers;
import dev.vantage.board.internal.views.BuiltInViews;

/**
 * The board's page with its runs and their views written into it, to open with no server and no network: what
 * {@code vantage report} writes. Each run's views are the board's own ({@link BuiltInViews}), each drawn once as the
 * board first draws it (the slowest step on a timeline); the page's script is the board's, which reads the answers
 * from the page instead of asking the board for them. A choice that would need the trace again (another step) and
 * comparing runs are the board's alone, and the page says so.
 *
 * <p>Text from traces reaches the page only inside JSON blocks, where {@code <}, {@code >}, {@code &} and the
 * JavaScript line separators are written as {@code \}{@code uXXXX} escapes, so no name can end the script element;
 * the script puts it into the page as text, never as markup.
 */
public final class BoardPage {

    /** The id of the element holding the board's answers, by the path the served page would ask. */
    public static final String ANSWERS_ELEMENT = "vantage-board-answers";

    private static final Pattern SAFE_ID = Pattern.compile("[A-Za-z0-9._-]+");
    private static final ObjectMapper JSON = Answers.JSON;

    private BoardPage() {
    }

    /**
     * Writes the page.
     *
     * @param title what the page is of (the trace, run or directory given), shown where the board names its folder
     * @param runs the runs, in the order the list shows them; ids made of letters, digits, '.', '_' and '-'
     * @param data more JSON blocks to embed, by element id (a caller's own data, read by its tests and scripts)
     * @param out where to write; not closed
     * @throws IllegalArgumentException if a run's id is not of that form, two runs share one, or a run is still
     *     {@linkplain BoardRun#analysing() being analysed}
     */
    public static void write(String title, List<? extends BoardRun> runs, Map<String, ?> data, Writer out)
            throws IOException {
        Map<String, Object> answers = answers(title, runs, BuiltInViews.all());
        String page = resource("/dev/vantage/board/internal/index.html");
        String style = resource("/dev/vantage/board/internal/board.css");
        String script = resource("/dev/vantage/board/internal/board.js");
        String echarts = resource(Answers.ECHARTS);
        if (echarts.toLowerCase(Locale.ROOT).contains("</script")) {
            throw new IllegalStateException(Answers.ECHARTS + " contains '</script' and cannot be inlined");
        }
        page = replace(page, "<title>Vantage board</title>", "<title>Vantage report: " + html(title) + "</title>");
        page = replace(page, "<h1>Vantage board</h1>", "<h1>Vantage report</h1>");
        page = replace(page, "<link rel=\"stylesheet\" href=\"/static/board.css\">", "<style>\n" + style
                + "</style>\n<script>window.addEventListener('error', function () {"
                + " document.documentElement.setAttribute('data-board', 'error'); });</script>");
        page = replace(page, "<script src=\"/static/echarts.min.js\"></script>\n", "");
        page = replace(page, "<script src=\"/static/board.js\" defer></script>\n", "");
        int end = page.lastIndexOf("</body>");
        if (end < 0) {
            throw new IllegalStateException("the board's page has no </body>");
        }
        out.write(page.substring(0, end));
        block(out, ANSWERS_ELEMENT, answers);
        for (Map.Entry<String, ?> e : data.entrySet()) {
            if (!SAFE_ID.matcher(e.getKey()).matches()) {
                throw new IllegalArgumentException("a data block's id must be letters, digits, '.', '_' or '-': "
                        + e.getKey());
            }
            block(out, e.getKey(), e.getValue());
        }
        out.write("<script>\n/* Apache ECharts 5.3.1, Apache License 2.0 */\n");
        out.write(echarts);
        out.write("\n</script>\n<script>\n");
        out.write(script);
        out.write("\n</script>\n");
        out.write(page.substring(end));
    }

    /** The board's answers for the runs: the list, each run's views, and each view's sections as first drawn. */
    static Map<String, Object> answers(String title, List<? extends BoardRun> runs, List<BoardView> views)
            throws IOException {
        Map<String, Object> answers = new LinkedHashMap<>();
        List<Object> rows = new ArrayList<>();
        for (BoardRun run : runs) {
            if (!SAFE_ID.matcher(run.id()).matches()) {
                throw new IllegalArgumentException("a run's id must be letters, digits, '.', '_' or '-': " + run.id());
            }
            if (run.analysing()) {
                throw new IllegalArgumentException("the run " + run.id() + " is still being analysed: a page holds"
                        + " complete runs");
            }
            String at = "/api/runs/" + run.id();
            if (answers.containsKey(at + "/views")) {
                throw new IllegalArgumentException("two runs have the id " + run.id());
            }
            BasicFileAttributes attrs = run.file() == null ? null
                    : Files.readAttributes(run.file(), BasicFileAttributes.class);
            rows.add(Answers.run(run.id(), run.name(), run.tags(), attrs == null ? 0 : attrs.size(),
                    attrs == null ? 0 : attrs.lastModifiedTime().toMillis(), "read", null));
            answers.put(at + "/views", Answers.views(run.name(), run, views));
            for (BoardView v : views) {
                if (!Answers.applies(v, run)) {
                    continue;
                }
                Object body;
                try {
                    List<ViewSection> sections = v.render(run);
                    body = Answers.view(v, sections, false);
                } catch (IOException | RuntimeException e) {
                    body = Answers.error("the view " + v.title() + " failed: " + e);
                }
                answers.put(at + "/views/" + v.id(), body);
            }
        }
        Map<String, Object> listing = new LinkedHashMap<>();
        listing.put("logdir", title);
        listing.put("runs", rows);
        listing.put("truncated", false);
        answers.put("/api/runs", listing);
        return answers;
    }

    private static void block(Writer out, String id, Object value) throws IOException {
        out.write("<script type=\"application/json\" id=\"" + id + "\">");
        JsonGenerator g = JSON.getFactory().createGenerator(out);
        g.setCharacterEscapes(new HtmlSafeEscapes());
        g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
        JSON.writeValue(g, value);
        out.write("</script>\n");
    }

    private static String replace(String page, String what, String with) {
        int at = page.indexOf(what);
        if (at < 0) {
            throw new IllegalStateException("the board's page has no " + what);
        }
        return page.substring(0, at) + with + page.substring(at + what.length());
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = BoardPage.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("the board's " + name + " is not on the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** Escapes text for HTML element content. */
    static String html(String text) {
        StringBuilder sb = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '&' -> sb.append("&amp;");
                case '"' -> sb.append("&quot;");
                case '\'' -> sb.append("&#39;");
                default -> sb.append(c);
            }
        }
        return sb.toString();
    }

    /** JSON escapes that make the text safe inside an HTML script element. */
    private static final class HtmlSafeEscapes extends CharacterEscapes {

        private static final long serialVersionUID = 1L;
        private final int[] table = standardAsciiEscapesForJSON();

        HtmlSafeEscapes() {
            table['<'] = ESCAPE_CUSTOM;
            table['>'] = ESCAPE_CUSTOM;
            table['&'] = ESCAPE_CUSTOM;
        }

        @Override
        public int[] getEscapeCodesForAscii() {
            return table;
        }

        @Override
        public SerializableString getEscapeSequence(int ch) {
            if (ch == '<' || ch == '>' || ch == '&' || ch == 0x2028 || ch == 0x2029) {
                return new SerializedString(String.format(Locale.ROOT, "\\u%04x", ch));
            }
            return null;
        }
    }
}
