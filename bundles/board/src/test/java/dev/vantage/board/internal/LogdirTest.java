package dev.vantage.board.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class LogdirTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private static Path write(Path file, String text) throws Exception {
        Files.createDirectories(file.getParent());
        return Files.writeString(file, text, StandardCharsets.UTF_8);
    }

    @Test
    public void findsRegistryRunsTorchTracesAndThePluginLayoutAndNothingOutside() throws Exception {
        Path root = tmp.newFolder("logs").toPath();
        Path outside = write(tmp.getRoot().toPath().resolve("secret/outside.pt.trace.json"), "{}");
        write(root.resolve("vantage_profiles/run-1.trace.json"), "{}");
        write(root.resolve("vantage_profiles/runs.jsonl"), String.join("\n",
                "{\"run_id\":\"r1\",\"rank\":0,\"world_size\":2,\"configuration\":{\"workload\":\"mlp-train\","
                        + "\"device\":\"npu:0\"},\"artifacts\":[{\"path\":\"run-1.csv\",\"kind\":\"csv\"},"
                        + "{\"path\":\"run-1.trace.json\",\"kind\":\"chrome\"}]}",
                "not json",
                "{\"run_id\":\"r2\",\"artifacts\":[{\"path\":\"../../secret/outside.pt.trace.json\","
                        + "\"kind\":\"chrome\"}]}",
                "{\"run_id\":\"r3\",\"artifacts\":[{\"path\":\"gone.trace.json\",\"kind\":\"chrome\"}]}", ""));
        write(root.resolve("resnet/plugins/profile/2026_11_28_10_00_00/worker0.pt.trace.json"), "{}");
        write(root.resolve("a.pt.trace.json.gz"), "x");
        write(root.resolve("b.pftrace"), "x");
        write(root.resolve("notes.json"), "{}");
        write(root.resolve("hta/rank-0.json"), "{\"schemaVersion\": 1, \"traceEvents\": []}");
        write(root.resolve(".hidden/c.pt.trace.json"), "{}");
        Files.createSymbolicLink(root.resolve("link.pt.trace.json"), outside);
        Files.createSymbolicLink(root.resolve("linked-dir"), outside.getParent());

        List<Logdir.Found> runs = new Logdir(root).scan();
        Map<String, Logdir.Found> byName = runs.stream().collect(Collectors.toMap(Logdir.Found::name,
                Function.identity()));
        assertEquals(byName.keySet().toString(), List.of("r1", "vantage_profiles/runs.jsonl line 2", "r2", "r3",
                "a.pt.trace.json.gz", "b.pftrace", "hta/rank-0.json",
                "resnet/plugins/profile/2026_11_28_10_00_00/worker0.pt.trace.json"),
                runs.stream().map(Logdir.Found::name).toList());
        Logdir.Found r1 = byName.get("r1");
        assertNull(r1.problem());
        assertEquals(root.resolve("vantage_profiles/run-1.trace.json"), r1.file());
        assertEquals("mlp-train", r1.tags().get("workload"));
        assertEquals("npu:0", r1.tags().get("device"));
        assertEquals("0 of 2", r1.tags().get("rank"));
        assertEquals("the registry's line is not JSON", byName.get("vantage_profiles/runs.jsonl line 2").problem());
        assertEquals("its trace is outside the log directory", byName.get("r2").problem());
        assertNull(byName.get("r2").file());
        assertTrue(byName.get("r3").problem(), byName.get("r3").problem().contains("missing"));
        Map<String, String> plugin = byName.get("resnet/plugins/profile/2026_11_28_10_00_00/worker0.pt.trace.json")
                .tags();
        assertEquals("resnet", plugin.get("run"));
        assertEquals("worker0", plugin.get("worker"));
        assertEquals("pytorch", plugin.get("source"));
        // ids are stable across walks and distinct
        assertEquals(runs.stream().map(Logdir.Found::id).toList(),
                new Logdir(root).scan().stream().map(Logdir.Found::id).toList());
        assertEquals(runs.size(), runs.stream().map(Logdir.Found::id).distinct().count());
    }

    @Test
    public void aRunsCyclesAreListedEachWithItsTimelineAndItsOtherFormatsAreNotRunsOfTheirOwn() throws Exception {
        // --profile-repeat 2 --profile-export chrome tensorboard perfetto with MEM: the second cycle was listed as a
        // loose "trace", and TensorBoard's and Perfetto's copies of each cycle as runs of PyTorch and Perfetto
        Path root = tmp.newFolder("logs").toPath();
        StringBuilder artifacts = new StringBuilder();
        for (String[] a : new String[][] {
            {"m-cycle1.trace.json.gz", "chrome"}, {"m-cycle1.pftrace", "perfetto"},
            {"m-cycle1_memory-timeline/m-cycle1.memory-timeline.json", "memory-timeline"},
            {"m-cycle2.trace.json.gz", "chrome"}, {"m-cycle2.pftrace", "perfetto"},
            {"m-cycle2_memory-timeline/m-cycle2.memory-timeline.json", "memory-timeline"},
            {"m/host_1.1.pt.trace.json.gz", "tensorboard"}, {"m/host_1.2.pt.trace.json.gz", "tensorboard"}}) {
            write(root.resolve(a[0]), "{}");
            artifacts.append(artifacts.length() == 0 ? "" : ",").append("{\"path\":\"").append(a[0])
                    .append("\",\"kind\":\"").append(a[1]).append("\"}");
        }
        write(root.resolve("runs.jsonl"), "{\"run_id\":\"r4\",\"configuration\":{\"workload\":\"mlp-train\"},"
                + "\"artifacts\":[" + artifacts + "]}\n");
        write(root.resolve("other.pt.trace.json"), "{}");

        List<Logdir.Found> runs = new Logdir(root).scan();
        assertEquals(List.of("r4 cycle 1", "r4 cycle 2", "other.pt.trace.json"),
                runs.stream().map(Logdir.Found::name).toList());
        for (int k = 1; k <= 2; k++) {
            Logdir.Found cycle = runs.get(k - 1);
            assertNull(cycle.problem());
            assertEquals(root.resolve("m-cycle" + k + ".trace.json.gz"), cycle.file());
            assertEquals(k + " of 2", cycle.tags().get("cycle"));
            assertEquals("mlp-train", cycle.tags().get("workload"));
            assertEquals("m-cycle" + k + "_memory-timeline/m-cycle" + k + ".memory-timeline.json",
                    cycle.tags().get(dev.vantage.board.internal.views.MemoryView.TIMELINE_TAG));
        }
        assertEquals(3, runs.stream().map(Logdir.Found::id).distinct().count());
        // a run that wrote TensorBoard's layout only is listed from it, once, though an older registry names the file
        // once per cycle
        String tb = "{\"path\":\"m/host_1.1.pt.trace.json.gz\",\"kind\":\"tensorboard\"}";
        write(root.resolve("runs.jsonl"), "{\"run_id\":\"r5\",\"artifacts\":[" + tb + "," + tb + "]}\n");
        List<String> names = new Logdir(root).scan().stream().map(Logdir.Found::name).toList();
        assertEquals(1, names.stream().filter(n -> n.equals("r5")).count());
        assertTrue(names.toString(), !names.contains("m/host_1.1.pt.trace.json.gz"));
    }
}
