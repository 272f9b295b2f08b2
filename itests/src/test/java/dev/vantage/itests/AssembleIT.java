package dev.vantage.itests;

import static dev.vantage.itests.LauncherProcess.refused;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** {@code vantage features} and {@code vantage assemble}: distributions a user builds from features, offline. */
public class AssembleIT {

    private static final Path FULL = Distributions.home("full");

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Test
    public void assembleBuildsADistributionOfTheChosenFeaturesThatListsOnlyThem() throws Exception {
        Path out = tmp.getRoot().toPath().resolve("mine");
        LauncherProcess.Result r = LauncherProcess.run(FULL, "assemble", "--features",
                "core,workloads,device-cpu,device-npu,exporter-chrome", "--out", out.toString());
        assertEquals(r.err() + r.out(), 0, r.exitCode());
        assertEquals("nothing on standard error: " + r.err(), "", r.err());
        assertTrue(r.out(), r.out().startsWith("assembled " + out + ": "));
        assertTrue(Files.isExecutable(out.resolve("vantage")));
        // its own script, with the JIT choice it carries, starts java for a verb given a small trace (the client
        // compiler): this distribution has no analysis library, so the verb's help is what it can answer
        Path trace = Files.writeString(tmp.getRoot().toPath().resolve("t.json"), "{\"traceEvents\": []}");
        Process script = new ProcessBuilder(out.resolve("vantage").toString(), "analyze", trace.toString(), "--help")
                .redirectErrorStream(true).start();
        String said = new String(script.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(said, 0, script.waitFor());
        assertTrue(said, said.startsWith("usage: vantage analyze"));

        // the new distribution boots from its own folder and holds exactly what was chosen
        LauncherProcess.Result devices = LauncherProcess.run(out, "devices");
        assertEquals(devices.err(), 0, devices.exitCode());
        List<String> types = devices.out().lines().skip(1).map(l -> l.split("\\s+")[0]).toList();
        assertEquals(List.of("cpu", "npu"), types);
        LauncherProcess.Result exporters = LauncherProcess.run(out, "exporters");
        assertEquals(List.of("chrome"), exporters.out().lines().skip(1).map(l -> l.split("\\s+")[0]).toList());
        LauncherProcess.Result run = LauncherProcess.run(out, "run", "mlp-train", "--device", "npu", "--steps", "5",
                "--profile", "--profile-dir", tmp.getRoot().toPath().resolve("mine-profiles").toString());
        assertEquals(run.err(), 0, run.exitCode());
        assertTrue(run.out(), run.out().contains("Self NPU time total"));
    }

    @Test
    public void anAssemblyThatCannotResolveNamesWhatIsMissingAndWritesNothing() throws Exception {
        Path needy = tmp.getRoot().toPath().resolve("needy.jar");
        java.util.jar.Manifest m = new java.util.jar.Manifest();
        m.getMainAttributes().put(java.util.jar.Attributes.Name.MANIFEST_VERSION, "1.0");
        m.getMainAttributes().putValue("Bundle-ManifestVersion", "2");
        m.getMainAttributes().putValue("Bundle-SymbolicName", "com.example.needy");
        m.getMainAttributes().putValue("Bundle-Version", "1.2.3");
        m.getMainAttributes().putValue("Import-Package", "com.example.missing;version=\"[1.0,2)\"");
        try (java.util.jar.JarOutputStream jar = new java.util.jar.JarOutputStream(Files.newOutputStream(needy), m)) {
            // a manifest and nothing else
        }
        Path out = tmp.getRoot().toPath().resolve("never");
        assertEquals("vantage: assemble: com.example.needy 1.2.3 needs package com.example.missing [1.0.0,2.0.0),"
                + " which no bundle of the full distribution or the added jars provides; nothing written",
                refused(FULL, "assemble", "--features", "core,device-cpu", "--add", needy.toString(), "--out",
                        out.toString()));
        assertFalse(Files.exists(out));
        try (Stream<Path> s = Files.list(tmp.getRoot().toPath())) {
            assertFalse("no half-written distribution", s.anyMatch(p -> p.getFileName().toString()
                    .contains("assembling")));
        }
        assertTrue(refused(FULL, "assemble", "--features", "core,gpu", "--out", out.toString())
                .startsWith("vantage: --features: unknown feature 'gpu'; features: board, core, device-cpu,"));
        LauncherProcess.Result features = LauncherProcess.run(FULL, "features");
        assertEquals(0, features.exitCode());
        assertTrue(features.out(), features.out().lines().anyMatch(l -> l.matches("device-npu\\s+1\\.0\\.0"
                + "\\s+dev\\.vantage\\.device\\.npu \\d+\\.\\d+\\.\\d+")));
    }
}
