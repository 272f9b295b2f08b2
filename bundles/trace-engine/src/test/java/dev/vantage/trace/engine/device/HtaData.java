package dev.vantage.trace.engine.device;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Set;

import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The device analyses' test data (HTA's traces and outputs under {@code hta/}, the plugin's under {@code plugin/},
 * provenance beside them) as the tests read it.
 */
final class HtaData {

    private static final ObjectMapper JSON = new ObjectMapper();

    private HtaData() {
    }

    /** One of HTA's traces ({@code hta/NAME}) as a file in the test's folder, copied the first time it is asked for. */
    static Path trace(TemporaryFolder tmp, String name) throws IOException {
        Path p = tmp.getRoot().toPath().resolve(name);
        if (!Files.exists(p)) {
            Files.createDirectories(p.getParent());
            try (InputStream in = HtaData.class.getResourceAsStream("hta/" + name)) {
                Files.copy(in, p);
            }
        }
        return p;
    }

    /** A test resource of the project's own beside HTA's traces ({@code plugin/...}), copied to a file of its own. */
    static Path written(TemporaryFolder tmp, String name) throws IOException {
        Path p = tmp.newFolder().toPath().resolve(Path.of(name).getFileName().toString());
        try (InputStream in = HtaData.class.getResourceAsStream(name)) {
            Files.copy(in, p);
        }
        return p;
    }

    /** A JSON file checked in beside the traces ({@code hta/...}, {@code plugin/...}). */
    static JsonNode json(String resource) throws IOException {
        try (InputStream in = HtaData.class.getResourceAsStream(resource)) {
            return JSON.readTree(in);
        }
    }

    /** The SHA-256 of a text in UTF-8, as lowercase hex (how HTA's scripts store long outputs). */
    static String sha256(String text) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            StringBuilder b = new StringBuilder();
            for (byte x : d) {
                b.append(String.format("%02x", x));
            }
            return b.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    /** A JSON object's field names. */
    static Set<String> names(Iterator<String> names) {
        Set<String> out = new HashSet<>();
        names.forEachRemaining(out::add);
        return out;
    }
}
