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
 * temporary name and renamed ({@link TraceFiles}). The page is self-contained: an inline SVG chart drawn here, no
 * script and nothing loaded from the network.
 */
final class MemoryTimelineFiles {

    /** Fill colours by category, in {@link MemoryCategory} order; torch's palette. */
    private static final String[] COLORS = {"#006400", "#daa520", "#000000", "#9370db", "#ff0000", "#0000cd",
        "#4169e1", "#808080"};
    private static final double MIB = 1024.0 * 1024.0;
    private static final int WIDTH = 960;
    private static final int HEIGHT = 420;
    private static final int LEFT = 80;
    private static final int RIGHT = 20;
    private static final int TOP = 20;
    private static final int BOTTOM = 50;

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

    /** The page: a title, the peaks, and the chart. */
    static void writeHtml(MemoryTimeline t, OutputStream out) throws IOException {
        long peakAllocated = 0;
        long peakReserved = 0;
        for (int i = 0; i < t.points(); i++) {
            peakAllocated = Math.max(peakAllocated, sum(t.sizes(i)));
            peakReserved = Math.max(peakReserved, t.reserved(i));
        }
        String title = "Memory timeline of " + t.device() + (t.emulated() ? " (emulated)" : "");
        StringBuilder h = new StringBuilder(1 << 16);
        h.append("<!DOCTYPE html>\n<html>\n<head><meta charset=\"utf-8\"/><title>").append(escape(title))
                .append("</title>\n<style>body{font-family:sans-serif;margin:16px}"
                        + "svg text{font-family:sans-serif;font-size:12px}</style></head>\n<body>\n<h2>")
                .append(escape(t.device()));
        if (t.emulated()) {
            h.append(" <small>emulated device: memory of an emulated driver, not of hardware</small>");
        }
        h.append("</h2>\n<p>Max memory allocated: ").append(mib(peakAllocated)).append(" MiB; max memory reserved: ")
                .append(mib(peakReserved)).append(" MiB; ").append(t.points()).append(" points");
        if (t.points() > 0) {
            h.append(", from ").append(Instant.ofEpochSecond(0, t.timeMicros(0) * 1000L));
        }
        h.append("</p>\n");
        svg(t, h, Math.max(peakAllocated, peakReserved));
        h.append("\n</body>\n</html>\n");
        Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8);
        w.write(h.toString());
        w.flush();
    }

    /** The chart: one step-shaped band per category stacked in torch's order, the reserved bytes as a line. */
    private static void svg(MemoryTimeline t, StringBuilder h, long maxBytes) {
        int n = t.points();
        double spanMs = n > 1 ? (t.timeMicros(n - 1) - t.timeMicros(0)) / 1000.0 : 1.0;
        double maxMib = niceCeiling(Math.max(maxBytes / MIB, 1e-3));
        double plotW = WIDTH - LEFT - RIGHT;
        double plotH = HEIGHT - TOP - BOTTOM;
        int legendH = 20 * ((MemoryCategory.values().length + 1 + 3) / 4);
        // no xmlns: inline SVG in HTML needs none, and the page names no URL at all
        h.append("<svg width=\"").append(WIDTH).append("\" height=\"")
                .append(HEIGHT + legendH).append("\" viewBox=\"0 0 ").append(WIDTH).append(' ')
                .append(HEIGHT + legendH).append("\">\n");
        h.append("<title>").append(escape("Memory timeline of " + t.device())).append("</title>\n");
        h.append("<rect x=\"").append(LEFT).append("\" y=\"").append(TOP).append("\" width=\"").append(fmt(plotW))
                .append("\" height=\"").append(fmt(plotH)).append("\" fill=\"#fafafa\" stroke=\"#888\"/>\n");
        // axes: five ticks each way
        for (int i = 0; i <= 5; i++) {
            double y = TOP + plotH - plotH * i / 5;
            double x = LEFT + plotW * i / 5;
            h.append("<line x1=\"").append(LEFT).append("\" x2=\"").append(fmt(LEFT + plotW)).append("\" y1=\"")
                    .append(fmt(y)).append("\" y2=\"").append(fmt(y)).append("\" stroke=\"#ddd\"/>\n");
            h.append("<text x=\"").append(LEFT - 6).append("\" y=\"").append(fmt(y + 4))
                    .append("\" text-anchor=\"end\">").append(number(maxMib * i / 5)).append("</text>\n");
            h.append("<text x=\"").append(fmt(x)).append("\" y=\"").append(fmt(TOP + plotH + 16))
                    .append("\" text-anchor=\"middle\">").append(number(spanMs * i / 5)).append("</text>\n");
        }
        h.append("<text x=\"").append(fmt(LEFT + plotW / 2)).append("\" y=\"").append(HEIGHT - 10)
                .append("\" text-anchor=\"middle\">Time (ms)</text>\n");
        h.append("<text x=\"16\" y=\"").append(fmt(TOP + plotH / 2)).append("\" text-anchor=\"middle\" transform=")
                .append("\"rotate(-90 16 ").append(fmt(TOP + plotH / 2)).append(")\">Memory (MiB)</text>\n");
        MemoryCategory[] categories = MemoryCategory.values();
        if (n > 0) {
            double[] x = new double[n];
            for (int i = 0; i < n; i++) {
                x[i] = LEFT + (n > 1 ? plotW * (t.timeMicros(i) - t.timeMicros(0)) / 1000.0 / spanMs : 0);
            }
            double right = LEFT + plotW;
            double[] below = new double[n];
            for (MemoryCategory c : categories) {
                double[] above = below.clone();
                boolean any = false;
                for (int i = 0; i < n; i++) {
                    long bytes = t.sizes(i)[1 + c.ordinal()];
                    any |= bytes != 0;
                    above[i] += bytes / MIB;
                }
                if (any) {
                    h.append("<path fill=\"").append(COLORS[c.ordinal()]).append("\" fill-opacity=\"0.7\" d=\"");
                    steps(h, x, above, right, true, maxMib, plotH);
                    reverseSteps(h, x, below, right, maxMib, plotH);
                    h.append("Z\"><title>").append(c.torchName()).append("</title></path>\n");
                }
                below = above;
            }
            double[] reservedMib = new double[n];
            for (int i = 0; i < n; i++) {
                reservedMib[i] = t.reserved(i) / MIB;
            }
            h.append("<path fill=\"none\" stroke=\"#d2691e\" stroke-width=\"1.5\" stroke-dasharray=\"6 3\" d=\"");
            steps(h, x, reservedMib, right, false, maxMib, plotH);
            h.append("\"><title>Reserved</title></path>\n");
        } else {
            h.append("<text x=\"").append(fmt(LEFT + plotW / 2)).append("\" y=\"").append(fmt(TOP + plotH / 2))
                    .append("\" text-anchor=\"middle\">no memory events on this device</text>\n");
        }
        // legend: the categories in torch's order, then the reserved line
        for (int i = 0; i <= categories.length; i++) {
            double lx = LEFT + (i % 4) * 200;
            double ly = HEIGHT + 20 * (i / 4);
            if (i < categories.length) {
                h.append("<rect x=\"").append(fmt(lx)).append("\" y=\"").append(fmt(ly - 10))
                        .append("\" width=\"12\" height=\"12\" fill=\"").append(COLORS[i])
                        .append("\" fill-opacity=\"0.7\"/>\n");
            } else {
                h.append("<line x1=\"").append(fmt(lx)).append("\" x2=\"").append(fmt(lx + 12)).append("\" y1=\"")
                        .append(fmt(ly - 4)).append("\" y2=\"").append(fmt(ly - 4))
                        .append("\" stroke=\"#d2691e\" stroke-width=\"1.5\" stroke-dasharray=\"6 3\"/>\n");
            }
            h.append("<text x=\"").append(fmt(lx + 18)).append("\" y=\"").append(fmt(ly)).append("\">")
                    .append(i < categories.length ? categories[i].torchName() : "Reserved").append("</text>\n");
        }
        h.append("</svg>");
    }

    /** A step line through the points left to right: each value holds until the next point's time. */
    private static void steps(StringBuilder h, double[] x, double[] mib, double right, boolean start, double maxMib,
            double plotH) {
        for (int i = 0; i < x.length; i++) {
            double y = TOP + plotH - plotH * mib[i] / maxMib;
            h.append(i == 0 ? "M" : "L").append(fmt(x[i])).append(' ').append(fmt(y)).append(' ');
            double next = i + 1 < x.length ? x[i + 1] : right;
            h.append("L").append(fmt(next)).append(' ').append(fmt(y)).append(' ');
        }
    }

    /** The same step line right to left, closing a band. */
    private static void reverseSteps(StringBuilder h, double[] x, double[] mib, double right, double maxMib,
            double plotH) {
        for (int i = x.length - 1; i >= 0; i--) {
            double y = TOP + plotH - plotH * mib[i] / maxMib;
            double next = i + 1 < x.length ? x[i + 1] : right;
            h.append("L").append(fmt(next)).append(' ').append(fmt(y)).append(' ');
            h.append("L").append(fmt(x[i])).append(' ').append(fmt(y)).append(' ');
        }
    }

    private static long sum(long[] point) {
        long s = 0;
        for (long v : point) {
            s += v;
        }
        return s;
    }

    /** The smallest of 1, 2, 2.5, 5 times a power of ten that is at least {@code v}. */
    private static double niceCeiling(double v) {
        double p = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[] {1, 2, 2.5, 5, 10}) {
            if (m * p >= v) {
                return m * p;
            }
        }
        return 10 * p;
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.2f", bytes / MIB);
    }

    private static String number(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.3g", v);
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
