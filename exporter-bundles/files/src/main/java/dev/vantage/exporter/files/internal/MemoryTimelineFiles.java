package dev.vantage.exporter.files.internal;

import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Locale;
import java.util.zip.GZIPOutputStream;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import dev.vantage.profiler.api.MemoryTimeline;
import dev.vantage.profiler.memory.MemoryCategory;
import dev.vantage.profiler.spi.TraceFiles;

/**
 * Writes a {@link MemoryTimeline} in the formats of torch's {@code export_memory_timeline}, chosen by the file
 * name: {@code .json}, {@code .json.gz}, {@code .raw.json.gz} and {@code .html}. Every file is written to a
 * temporary name and renamed ({@link TraceFiles}). The page is self-contained: its chart is drawn by the chart
 * library {@code vantage report} draws with, inlined, so it loads nothing from the network.
 */
final class MemoryTimelineFiles {

    /** Fill colours by category, in {@link MemoryCategory} order; torch's palette. */
    private static final String[] COLORS = {"#006400", "#daa520", "#000000", "#9370db", "#ff0000", "#0000cd",
        "#4169e1", "#808080"};
    private static final double MIB = 1024.0 * 1024.0;

    private static final JsonFactory JSON = new JsonFactory();

    private MemoryTimelineFiles() {
    }

    /**
     * Writes the timeline in the format the file name asks for.
     *
     * @throws IllegalArgumentException if the name ends in none of {@code .json}, {@code .json.gz},
     *     {@code .raw.json.gz}, {@code .html}
     * @throws IOException if writing fails
     */
    static void write(MemoryTimeline t, Path path) throws IOException {
        String name = path.getFileName().toString();
        if (name.endsWith(".raw.json.gz")) {
            TraceFiles.writeFile(path, out -> gzipped(out, o -> writeRaw(t, o)));
        } else if (name.endsWith(".json.gz")) {
            TraceFiles.writeFile(path, out -> gzipped(out, o -> writeJson(t, o)));
        } else if (name.endsWith(".json")) {
            TraceFiles.writeFile(path, out -> writeJson(t, out));
        } else if (name.endsWith(".html")) {
            TraceFiles.writeFile(path, out -> writeHtml(t, out));
        } else {
            throw new IllegalArgumentException("cannot tell the memory timeline format of '" + name
                    + "'; end the name in .json, .json.gz, .raw.json.gz or .html");
        }
    }

    private static void gzipped(OutputStream out, TraceFiles.FileBody body) throws IOException {
        GZIPOutputStream gz = new GZIPOutputStream(out, 1 << 16);
        body.write(gz);
        gz.finish();
    }

    /** torch's {@code [times, sizes]}. */
    static void writeJson(MemoryTimeline t, OutputStream out) throws IOException {
        try (JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8)) {
            g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            g.writeStartArray();
            g.writeStartArray();
            for (int i = 0; i < t.points(); i++) {
                long time = t.timeMicros(i);
                g.writeNumber(time);
            }
            g.writeEndArray();
            g.writeStartArray();
            for (int i = 0; i < t.points(); i++) {
                long[] point = t.sizes(i);
                g.writeArray(point, 0, point.length);
            }
            g.writeEndArray();
            g.writeEndArray();
        }
    }

    /** torch's raw list of {@code [timestamp, action, bytes, category]}. */
    static void writeRaw(MemoryTimeline t, OutputStream out) throws IOException {
        try (JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8)) {
            g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            g.writeStartArray();
            for (long[] row : t.raw()) {
                g.writeArray(row, 0, row.length);
            }
            g.writeEndArray();
        }
    }

    /** The page's chart: the same chart library as {@code vantage report}'s page, inlined (nothing loaded). */
    static final String ECHARTS = "META-INF/resources/webjars/echarts/5.3.1/dist/echarts.min.js";

    /**
     * The page: a title, the peaks, and the chart, drawn by the chart library {@code vantage report} draws with
     * (Apache ECharts, inlined, so the page loads nothing): one step-shaped band per category stacked in torch's order,
     * the reserved bytes as a dashed line, each point's values on hover. The data is embedded as JSON; the page's root
     * says {@code data-vantage-page="rendered"} once the chart drew and {@code error} if a script failed.
     */
    static void writeHtml(MemoryTimeline t, OutputStream out) throws IOException {
        long peakAllocated = 0;
        long peakReserved = 0;
        for (int i = 0; i < t.points(); i++) {
            peakAllocated = Math.max(peakAllocated, sum(t.sizes(i)));
            peakReserved = Math.max(peakReserved, t.reserved(i));
        }
        String title = "Memory timeline of " + t.device() + (t.emulated() ? " (emulated)" : "");
        Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8);
        w.write("<!DOCTYPE html>\n<html data-vantage-page=\"loading\">\n<head><meta charset=\"utf-8\"/><title>");
        w.write(escape(title));
        w.write("</title>\n<style>body{font-family:sans-serif;margin:16px}#chart{width:1000px;height:520px}</style>"
                + "</head>\n<body>\n<h2>");
        w.write(escape(t.device()));
        if (t.emulated()) {
            w.write(" <small>emulated device: memory of an emulated driver, not of hardware</small>");
        }
        w.write("</h2>\n<p>Max memory allocated: " + mib(peakAllocated) + " MiB; max memory reserved: "
                + mib(peakReserved) + " MiB; " + t.points() + " points");
        if (t.points() > 0) {
            w.write(", from " + Instant.ofEpochSecond(0, t.timeMicros(0) * 1000L));
        }
        w.write("</p>\n<div id=\"chart\"></div>\n<script type=\"application/json\" id=\"" + DATA_ELEMENT + "\">");
        w.write(data(t));
        w.write("</script>\n<script>\n/* Apache ECharts 5.3.1, Apache License 2.0 */\n");
        w.write(echarts());
        w.write("\n</script>\n<script>\n");
        w.write(CHART_SCRIPT);
        w.write("</script>\n</body>\n</html>\n");
        w.flush();
    }

    /** The id of the element whose text is the chart's data as JSON. */
    static final String DATA_ELEMENT = "vantage-memory-timeline";

    /**
     * The chart's data: the categories in torch's order with their colours, each point's time in milliseconds from
     * the first, each category's MiB at each point, and the reserved MiB; as JSON that cannot end the script
     * element it is in.
     */
    private static String data(MemoryTimeline t) throws IOException {
        java.io.StringWriter text = new java.io.StringWriter();
        MemoryCategory[] categories = MemoryCategory.values();
        try (JsonGenerator g = JSON.createGenerator(text)) {
            g.writeStartObject();
            g.writeStringField("device", t.device());
            g.writeArrayFieldStart("categories");
            for (MemoryCategory c : categories) {
                g.writeStartObject();
                g.writeStringField("name", c.torchName());
                g.writeStringField("color", COLORS[c.ordinal()]);
                g.writeEndObject();
            }
            g.writeEndArray();
            long first = t.points() > 0 ? t.timeMicros(0) : 0;
            g.writeArrayFieldStart("timesMs");
            for (int i = 0; i < t.points(); i++) {
                g.writeNumber((t.timeMicros(i) - first) / 1000.0);
            }
            g.writeEndArray();
            g.writeArrayFieldStart("mib");
            for (MemoryCategory c : categories) {
                g.writeStartArray();
                for (int i = 0; i < t.points(); i++) {
                    g.writeNumber(t.sizes(i)[1 + c.ordinal()] / MIB);
                }
                g.writeEndArray();
            }
            g.writeEndArray();
            g.writeArrayFieldStart("reservedMib");
            for (int i = 0; i < t.points(); i++) {
                g.writeNumber(t.reserved(i) / MIB);
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        return text.toString().replace("</", "<\\/");
    }

    /** Draws the chart from the embedded data, and says on the page's root whether it did. */
    private static final String CHART_SCRIPT = """
            (function () {
              var root = document.documentElement;
              try {
                var d = JSON.parse(document.getElementById('vantage-memory-timeline').textContent);
                var series = [];
                d.categories.forEach(function (c, k) {
                  var values = d.mib[k];
                  if (!values.some(function (v) { return v !== 0; })) { return; }
                  series.push({name: c.name, type: 'line', stack: 'allocated', step: 'end', symbol: 'none',
                    areaStyle: {opacity: 0.7}, lineStyle: {width: 0}, color: c.color,
                    data: values.map(function (v, i) { return [d.timesMs[i], v]; })});
                });
                series.push({name: 'Reserved', type: 'line', step: 'end', symbol: 'none', color: '#d2691e',
                  lineStyle: {type: 'dashed', width: 1.5},
                  data: d.reservedMib.map(function (v, i) { return [d.timesMs[i], v]; })});
                var chart = echarts.init(document.getElementById('chart'), null, {renderer: 'svg'});
                chart.setOption({
                  animation: false,
                  tooltip: {trigger: 'axis', valueFormatter: function (v) { return v.toFixed(3) + ' MiB'; }},
                  legend: {bottom: 0},
                  grid: {left: 80, right: 20, top: 20, bottom: 70},
                  xAxis: {type: 'value', name: 'Time (ms)', nameLocation: 'middle', nameGap: 28},
                  yAxis: {type: 'value', name: 'Memory (MiB)', nameLocation: 'middle', nameGap: 56},
                  series: series
                });
                root.setAttribute('data-vantage-series', String(series.length));
                root.setAttribute('data-vantage-page', 'rendered');
              } catch (e) {
                root.setAttribute('data-vantage-page', 'error');
                root.setAttribute('data-vantage-error', String(e));
              }
            })();
            """;

    /** The chart library, from the bundle's own resources (the WebJar's file, embedded at build time). */
    private static String echarts() throws IOException {
        try (java.io.InputStream in = MemoryTimelineFiles.class.getClassLoader().getResourceAsStream(ECHARTS)) {
            if (in == null) {
                throw new IOException("the chart library " + ECHARTS + " is missing from the files bundle");
            }
            String js = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            if (js.toLowerCase(Locale.ROOT).contains("</script")) {
                throw new IOException(ECHARTS + " contains '</script' and cannot be inlined");
            }
            return js;
        }
    }

    private static long sum(long[] point) {
        long s = 0;
        for (long v : point) {
            s += v;
        }
        return s;
    }


    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.2f", bytes / MIB);
    }



    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
