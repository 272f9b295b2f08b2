package ${package}.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

import org.osgi.service.component.annotations.Component;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.core.io.SerializedString;

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
 * that is renamed into place only when the file is complete. The JSON is written by Jackson's streaming generator
 * (the platform provides jackson-core), never by hand: names and args may hold any character.
 */
@Component(service = TraceExporter.class)
public class JsonLinesExporter implements TraceExporter {

    /** The format name users select this exporter by, as in {@code --profile-export ${format}}. */
    public static final String FORMAT = "${format}";

    /** Leaves the stream open: {@link TraceFiles#writeFile} closes it once the file is complete. */
    private static final JsonFactory JSON = JsonFactory.builder()
            .disable(StreamWriteFeature.AUTO_CLOSE_TARGET).build();

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
            // Jackson writes the JSON (escapes included); one generator, one value per line
            try (JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8)) {
                g.setRootValueSeparator(new SerializedString("\n"));
                writeHeader(trace, g);
                EventCursor e = trace.events();
                while (e.next()) {
                    writeEvent(e, g);
                }
                g.writeRaw('\n');
            }
        });
    }

    private static void writeHeader(Trace trace, JsonGenerator g) throws IOException {
        g.writeStartObject();
        g.writeStringField("type", "trace");
        g.writeNumberField("pid", trace.processId());
        g.writeStringField("process", trace.processName());
        g.writeNumberField("start_ns", trace.startEpochNanos());
        g.writeNumberField("end_ns", trace.endEpochNanos());
        g.writeNumberField("events", trace.eventCount());
        g.writeNumberField("dropped_events", trace.droppedEvents());
        g.writeArrayFieldStart("threads");
        for (TraceThread t : trace.threads()) {
            g.writeStartObject();
            g.writeNumberField("id", t.id());
            g.writeStringField("name", t.name());
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeArrayFieldStart("devices");
        for (TraceDevice d : trace.devices()) {
            g.writeStartObject();
            g.writeStringField("type", d.type());
            g.writeNumberField("index", d.index());
            g.writeBooleanField("emulated", d.emulated());
            object(g, "properties", d.properties());
            g.writeEndObject();
        }
        g.writeEndArray();
        object(g, "metadata", trace.metadata());
        g.writeEndObject();
    }

    private static void writeEvent(EventCursor e, JsonGenerator g) throws IOException {
        g.writeStartObject();
        g.writeStringField("type", "event");
        g.writeNumberField("id", e.eventId());
        g.writeStringField("name", e.name());
        g.writeStringField("kind", e.kind().name().toLowerCase(Locale.ROOT));
        g.writeNumberField("thread", e.threadId());
        g.writeNumberField("start_ns", e.startEpochNanos());
        g.writeNumberField("dur_ns", e.durationNanos());
        g.writeNumberField("parent", e.parentId());
        if (e.deviceType() != null && !e.deviceType().isEmpty()) {
            g.writeStringField("device", e.deviceType());
            g.writeNumberField("device_index", e.deviceIndex());
            g.writeNumberField("stream", e.streamId());
        }
        g.writeNumberField("correlation", e.correlationId());
        g.writeNumberField("flow", e.flowId());
        Map<String, String> args = e.args();
        if (!args.isEmpty()) {
            object(g, "args", args);
        }
        g.writeEndObject();
    }

    /** A field holding a map of strings as an object, its keys sorted. */
    private static void object(JsonGenerator g, String field, Map<String, String> map) throws IOException {
        g.writeObjectFieldStart(field);
        for (Map.Entry<String, String> entry : new TreeMap<>(map).entrySet()) {
            g.writeStringField(entry.getKey(), entry.getValue());
        }
        g.writeEndObject();
    }
}
