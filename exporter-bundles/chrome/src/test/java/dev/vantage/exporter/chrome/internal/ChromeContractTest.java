package dev.vantage.exporter.chrome.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import dev.vantage.profiler.spi.TraceExporter;
import dev.vantage.exporter.contract.TraceExporterContract;

/** The exporter contract for {@code chrome}, read back with Jackson's streaming parser (bounded memory). */
public class ChromeContractTest extends TraceExporterContract {

    @Override
    protected TraceExporter exporter() {
        return new ChromeTraceExporter();
    }

    /** Counts complete events (except the Trace span) and memory instants in {@code traceEvents}. */
    @Override
    protected long readBack(Path target) throws IOException {
        long count = 0;
        try (InputStream raw = Files.newInputStream(target);
                InputStream in = target.toString().endsWith(".gz") ? new GZIPInputStream(raw) : raw;
                JsonParser p = new JsonFactory().createParser(in)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new AssertionError("not a JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                p.nextToken();
                if (!field.equals("traceEvents")) {
                    p.skipChildren();
                    continue;
                }
                while (p.nextToken() == JsonToken.START_OBJECT) {
                    String ph = null;
                    String cat = null;
                    String name = null;
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String key = p.currentName();
                        p.nextToken();
                        switch (key) {
                            case "ph" -> ph = p.getText();
                            case "cat" -> cat = p.getText();
                            case "name" -> name = p.getText();
                            default -> p.skipChildren();
                        }
                    }
                    if ("X".equals(ph) && !"Trace".equals(cat)
                            || "i".equals(ph) && name != null && name.startsWith("[")) {
                        count++;
                    }
                }
            }
        }
        return count;
    }
}
