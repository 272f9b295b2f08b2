package ${package}.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.vantage.exporter.contract.TraceExporterContract;
import dev.vantage.profiler.spi.TraceExporter;

/**
 * The exporter contract for {@code ${format}}: every line is read back with Jackson, a parser that is not the
 * exporter's own, and every event line must carry the fields a reader relies on.
 */
public class JsonLinesContractTest extends TraceExporterContract {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    protected TraceExporter exporter() {
        return new JsonLinesExporter();
    }

    @Override
    protected long readBack(Path target) throws IOException {
        long events = 0;
        long declared = -1;
        try (BufferedReader r = Files.newBufferedReader(target, StandardCharsets.UTF_8)) {
            String line;
            int number = 0;
            while ((line = r.readLine()) != null) {
                number++;
                JsonNode node = JSON.readTree(line);
                if (number == 1) {
                    assertEquals("the first line describes the trace", "trace", node.get("type").asText());
                    declared = node.get("events").asLong();
                    continue;
                }
                assertEquals("line " + number, "event", node.get("type").asText());
                for (String field : new String[] {"id", "name", "kind", "thread", "start_ns", "dur_ns"}) {
                    assertTrue("line " + number + " lacks " + field, node.has(field));
                }
                assertTrue("line " + number + " has a negative duration", node.get("dur_ns").asLong() >= 0);
                events++;
            }
        }
        assertEquals("the header's event count", declared, events);
        return events;
    }
}
