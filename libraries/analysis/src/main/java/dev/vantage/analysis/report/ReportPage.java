package dev.vantage.analysis.report;

import java.io.IOException;
import java.io.InputStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Writes a {@link Report} as one self-contained HTML page: the data as a JSON block, the charting library (Apache
 * ECharts, read from its WebJar on the class path) and the page's own script and style, all inline, so it opens
 * with no network. Trace text (op names are user data) reaches the page only inside the JSON block, where
 * {@code <}, {@code >}, {@code &} and the JavaScript line separators are written as {@code \}{@code uXXXX}
 * escapes, so no name can end the script element; the page's script puts it into the DOM as text, never as markup.
 */
public final class ReportPage {

    /** The ECharts WebJar version this page inlines. */
    public static final String ECHARTS_VERSION = "5.3.1";

    /** The id of the element holding the report's data as JSON. */
    public static final String DATA_ELEMENT = "vantage-data";

    private static final String ECHARTS = "META-INF/resources/webjars/echarts/" + ECHARTS_VERSION
            + "/dist/echarts.min.js";

    private static final ObjectMapper JSON = new ObjectMapper();

    private ReportPage() {
    }

    /**
     * Writes the page.
     *
     * @param report what to show
     * @param out where to write; not closed
     * @throws IllegalStateException if the charting library is not on the class path
     */
    public static void write(Report report, Writer out) throws IOException {
        String echarts = resource(ECHARTS, "the chart library (org.webjars.npm:echarts:" + ECHARTS_VERSION
                + ", expected in the analysis library's lib/analysis)");
        if (echarts.toLowerCase(Locale.ROOT).contains("</script")) {
            throw new IllegalStateException(ECHARTS + " contains '</script' and cannot be inlined");
        }
        String script = resource("dev/vantage/analysis/report/report.js", "the report script");
        String style = resource("dev/vantage/analysis/report/report.css", "the report style");
        out.write("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
        out.write("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
        out.write("<title>Vantage report: " + html(report.title()) + "</title>\n<style>\n" + style + "</style>\n");
        // installed first, so that an error in any later script, the library's included, is seen
        out.write("<script>window.addEventListener('error', function (e) {"
                + " document.documentElement.setAttribute('data-vantage-report', 'error');"
                + " document.documentElement.setAttribute('data-vantage-error', String(e.message)); });</script>\n");
        out.write("</head>\n<body>\n");
        out.write("<header><h1>Vantage profile report</h1><p class=\"subtitle\">" + html(report.title())
                + "</p><div id=\"trace-picker\"></div></header>\n");
        out.write("<main id=\"app\"><noscript>This report needs JavaScript for its tables and charts; its data is"
                + " the JSON in the element " + DATA_ELEMENT + ".</noscript></main>\n");
        out.write("<script type=\"application/json\" id=\"" + DATA_ELEMENT + "\">");
        JsonGenerator g = JSON.getFactory().createGenerator(out);
        g.setCharacterEscapes(new HtmlSafeEscapes());
        g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
        JSON.writeValue(g, report);
        out.write("</script>\n");
        out.write("<script>\n/* Apache ECharts " + ECHARTS_VERSION + ", Apache License 2.0 */\n");
        out.write(echarts);
        out.write("\n</script>\n<script>\n");
        out.write(script);
        out.write("\n</script>\n</body>\n</html>\n");
    }

    private static String resource(String name, String what) throws IOException {
        ClassLoader loader = ReportPage.class.getClassLoader();
        try (InputStream in = loader.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(what + " is not on the class path: " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** Escapes text for HTML element content and attribute values. */
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
