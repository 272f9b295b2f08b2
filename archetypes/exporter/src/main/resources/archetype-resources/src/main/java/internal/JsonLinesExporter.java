package ${package}.internal;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

import org.osgi.service.component.annotations.Component;

import dev.vantage.profiler.spi.TraceExporter;
import dev.vantage.profiler.spi.TraceFiles;
import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.Trace;
import dev.vantage.profiler.trace.TraceDevice;
import dev.vantage.profiler.trace.TraceThread;

/**
 * The {@code ${format}} format: a trace as JSON Lines, one JSON object per line. The first line describes the trace
 * (process, window, threads, devices, dropped events, metadata); every further line is one event. Events are
 * streamed from the trace's cursor, so a trace of any length is written in bounded memory, under a temporary name
 * that is renamed into place only when the file is complete.
 */
@Component(service = TraceExporter.class)
public class JsonLinesExporter implements TraceExporter {

    /** The format name users select this exporter by, as in {@code --profile-export ${format}}. */
    public static final String FORMAT = "${format}";

    @Override
    public String format() {
        return FORMAT;
    }

    @Override
    public Path defaultTarget(Path directory, String baseName) {
        return directory.resolve(baseName + ".events.jsonl");
    }

    @Override
    public void export(Trace trace, Path target) throws IOException {
        Objects.requireNonNull(trace, "trace");
        TraceFiles.writeFile(target, out -> {
            Writer w = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16);
            writeHeader(trace, w);
            EventCursor e = trace.events();
            while (e.next()) {
                writeEvent(e, w);
            }
            w.flush();
        });
    }

    private static void writeHeader(Trace trace, Writer w) throws IOException {
        w.write("{\"type\":\"trace\",\"pid\":");
        w.write(Long.toString(trace.processId()));
        w.write(",\"process\":");
        quote(trace.processName(), w);
        w.write(",\"start_ns\":");
        w.write(Long.toString(trace.startEpochNanos()));
        w.write(",\"end_ns\":");
        w.write(Long.toString(trace.endEpochNanos()));
        w.write(",\"events\":");
        w.write(Long.toString(trace.eventCount()));
        w.write(",\"dropped_events\":");
        w.write(Long.toString(trace.droppedEvents()));
        w.write(",\"threads\":[");
        boolean first = true;
        for (TraceThread t : trace.threads()) {
            w.write(first ? "{\"id\":" : ",{\"id\":");
            first = false;
            w.write(Long.toString(t.id()));
            w.write(",\"name\":");
            quote(t.name(), w);
            w.write('}');
        }
        w.write("],\"devices\":[");
        first = true;
        for (TraceDevice d : trace.devices()) {
            w.write(first ? "{\"type\":" : ",{\"type\":");
            first = false;
            quote(d.type(), w);
            w.write(",\"index\":");
            w.write(Integer.toString(d.index()));
            w.write(",\"emulated\":");
            w.write(Boolean.toString(d.emulated()));
            w.write(",\"properties\":");
            object(d.properties(), w);
            w.write('}');
        }
        w.write("],\"metadata\":");
        object(trace.metadata(), w);
        w.write("}\n");
    }

    private static void writeEvent(EventCursor e, Writer w) throws IOException {
        w.write("{\"type\":\"event\",\"id\":");
        w.write(Long.toString(e.eventId()));
        w.write(",\"name\":");
        quote(e.name(), w);
        w.write(",\"kind\":");
        quote(e.kind().name().toLowerCase(java.util.Locale.ROOT), w);
        w.write(",\"thread\":");
        w.write(Long.toString(e.threadId()));
        w.write(",\"start_ns\":");
        w.write(Long.toString(e.startEpochNanos()));
        w.write(",\"dur_ns\":");
        w.write(Long.toString(e.durationNanos()));
        w.write(",\"parent\":");
        w.write(Long.toString(e.parentId()));
        if (e.deviceType() != null && !e.deviceType().isEmpty()) {
            w.write(",\"device\":");
            quote(e.deviceType(), w);
            w.write(",\"device_index\":");
            w.write(Integer.toString(e.deviceIndex()));
            w.write(",\"stream\":");
            w.write(Long.toString(e.streamId()));
        }
        w.write(",\"correlation\":");
        w.write(Long.toString(e.correlationId()));
        w.write(",\"flow\":");
        w.write(Long.toString(e.flowId()));
        Map<String, String> args = e.args();
        if (!args.isEmpty()) {
            w.write(",\"args\":");
            object(args, w);
        }
        w.write("}\n");
    }

    private static void object(Map<String, String> map, Writer w) throws IOException {
        w.write('{');
        boolean first = true;
        for (Map.Entry<String, String> entry : new java.util.TreeMap<>(map).entrySet()) {
            if (!first) {
                w.write(',');
            }
            first = false;
            quote(entry.getKey(), w);
            w.write(':');
            quote(entry.getValue(), w);
        }
        w.write('}');
    }

    /** Writes a JSON string (RFC 8259): quotes, backslashes and control characters escaped. */
    static void quote(String s, Writer w) throws IOException {
        if (s == null) {
            w.write("null");
            return;
        }
        w.write('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> w.write("\\\"");
                case '\\' -> w.write("\\\\");
                case '\n' -> w.write("\\n");
                case '\r' -> w.write("\\r");
                case '\t' -> w.write("\\t");
                default -> {
                    if (c < 0x20) {
                        w.write(String.format("\\u%04x", (int) c));
                    } else {
                        w.write(c);
                    }
                }
            }
        }
        w.write('"');
    }
}
