package dev.vantage.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A vendor's path end to end: the device and exporter bundles that the archetypes' integration tests generated
 * and built outside this repository's parent POM (acme-device and jsonl-exporter) are hot-deployed into a running
 * minimal platform, a workload runs on the new device with its activity recorded and is exported by the new
 * exporter, and removing both jars leaves the platform running without them.
 */
public class ArchetypeDeployIT {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private static Path jar(String property) {
        Path jar = Path.of(System.getProperty(property, "missing"));
        assertTrue(property + ": no " + jar + "; the archetype integration tests build it", Files.isRegularFile(jar));
        return jar;
    }

    @Test
    public void generatedDeviceAndExporterHotDeployProfileAndLeave() throws Exception {
        Path deploy = tmp.newFolder("deploy").toPath();
        Path out = tmp.newFolder("profiles").toPath();
        try (LauncherProcess shell = LauncherProcess.start(Distributions.home("full"), "shell",
                "--distribution", "minimal", "--deploy-dir", deploy.toString())) {
            shell.awaitLine("backend registered: cpu");
            Files.copy(jar("archetype.device.jar"), deploy.resolve("acme-device.jar"));
            awaitAll(shell, "backend registered: acme (com.example.vantage.acme 0.1.0)",
                    "device registered: acme (com.example.vantage.acme 0.1.0)",
                    "allocator registered: acme:0 (com.example.vantage.acme 0.1.0)");
            Files.copy(jar("archetype.exporter.jar"), deploy.resolve("jsonl-exporter.jar"));
            shell.awaitLine("exporter registered: jsonl (com.example.vantage.jsonl 0.1.0)");

            shell.send("vantage:devices");
            String device = shell.awaitLine("com.example.vantage.acme");
            assertTrue(device, device.contains("acme") && device.contains("emulated"));

            shell.send("vantage:run mlp-train --device acme --steps 2 --profile --profile-activities CPU ACME"
                    + " --profile-export jsonl --profile-dir " + out + " --profile-name acme");
            shell.awaitLine("trace written: " + out.resolve("acme.events.jsonl"));

            Files.delete(deploy.resolve("acme-device.jar"));
            shell.awaitLine("backend unregistered: acme");
            Files.delete(deploy.resolve("jsonl-exporter.jar"));
            shell.awaitLine("exporter unregistered: jsonl");
            // the announcer hears of an unregistration in the same event as the profiler, not after it: list
            // again until the profiler has let go too (each round waits for its own echo, no sleeping)
            List<String> afterRemoval = List.of();
            for (int round = 0; round < 50; round++) {
                int from = shell.output().length();
                shell.send("vantage:devices");
                shell.send("vantage:exporters");
                shell.send("echo listed-" + round);
                shell.awaitLine("listed-" + round);
                afterRemoval = shell.output().substring(from).lines().map(l -> l.replaceFirst("^(g! )+", ""))
                        .toList();
                if (afterRemoval.stream().noneMatch(l -> l.matches("(acme|jsonl)\\s.*"))) {
                    break;
                }
            }
            shell.send("stop 0");
            assertEquals(0, shell.awaitExit());
            assertTrue("the device listing ran: " + afterRemoval, afterRemoval.stream()
                    .anyMatch(l -> l.matches("cpu\\s+CPU\\s+native.*")));
            assertTrue("the exporter listing ran: " + afterRemoval, afterRemoval.stream()
                    .anyMatch(l -> l.matches("FORMAT\\s+BUNDLE")));
            assertFalse(afterRemoval.toString(), afterRemoval.stream().anyMatch(l -> l.matches("acme\\s.*")));
            assertFalse(afterRemoval.toString(), afterRemoval.stream().anyMatch(l -> l.matches("jsonl\\s.*")));
        }
        checkTrace(out.resolve("acme.events.jsonl"));
    }

    /**
     * The exporter template, which every outside exporter starts from, writes its JSON with Jackson's generator,
     * not with a hand-written quote(): the bundle generated from it imports jackson-core's packages, which the
     * platform provides.
     */
    @Test
    public void theGeneratedExporterWritesItsJsonWithJackson() throws IOException {
        try (java.util.jar.JarFile jar = new java.util.jar.JarFile(jar("archetype.exporter.jar").toFile())) {
            String imports = jar.getManifest().getMainAttributes().getValue("Import-Package");
            // the clauses are split at a comma before a package name, not at the one inside a version range
            assertTrue("Import-Package: " + imports, imports != null && java.util.Arrays.stream(
                    imports.split(",(?=[a-z])")).anyMatch(i -> i.startsWith("com.fasterxml.jackson.core;")
                            || i.equals("com.fasterxml.jackson.core")));
        }
    }

    /** Waits until every text has been printed; a bundle's components register in no set order. */
    private static void awaitAll(LauncherProcess p, String... texts) throws InterruptedException {
        while (!java.util.Arrays.stream(texts).allMatch(p.output()::contains)) {
            p.awaitLine(" registered: ");
        }
    }

    /** Reads the exporter's output with Jackson: acme kernels on the device rows, each linked to its CPU op. */
    private static void checkTrace(Path file) throws Exception {
        ObjectMapper json = new ObjectMapper();
        List<JsonNode> kernels = new ArrayList<>();
        Map<Long, JsonNode> opsByCorrelation = new HashMap<>();
        JsonNode header = null;
        try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            while ((line = r.readLine()) != null) {
                JsonNode n = json.readTree(line);
                if (header == null) {
                    header = n;
                    continue;
                }
                String kind = n.get("kind").asText();
                if (kind.equals("kernel")) {
                    kernels.add(n);
                } else if (kind.equals("cpu_op") && n.get("correlation").asLong() >= 0) {
                    opsByCorrelation.put(n.get("correlation").asLong(), n);
                }
            }
        }
        assertEquals("trace", header.get("type").asText());
        JsonNode dev = header.get("devices").get(0);
        assertEquals("acme", dev.get("type").asText());
        assertTrue("the emulated device says so", dev.get("emulated").asBoolean());
        assertTrue("kernels recorded: " + kernels.size(), kernels.size() >= 10);
        for (JsonNode k : kernels) {
            assertEquals(k.toString(), "acme", k.get("device").asText());
            assertTrue(k.toString(), k.get("name").asText().startsWith("acme_"));
            JsonNode op = opsByCorrelation.get(k.get("correlation").asLong());
            assertTrue("kernel " + k + " has the CPU op that launched it", op != null);
            assertTrue(k.toString(), k.get("flow").asLong() > 0);
        }
    }
}
