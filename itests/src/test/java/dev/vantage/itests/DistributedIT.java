package dev.vantage.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Data-parallel training launched as torchrun launches it: every rank writes its trace with its collectives as
 * torch records them and its rank in distributedInfo, all ranks' TensorBoard workers land in one run, and a rank
 * that dies takes the others down with a message naming it instead of leaving them hanging.
 */
public class DistributedIT {

    private static final Path FULL = Distributions.home("full");

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private static JsonNode read(Path file) throws Exception {
        try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
            return new ObjectMapper().readTree(in);
        }
    }

    @Test
    public void fourRanksTrainWithDdpAndEachTraceHoldsItsCollectives() throws Exception {
        Path dir = tmp.newFolder("ddp").toPath();
        LauncherProcess.Result r = LauncherProcess.run(FULL, "launch", "--nproc", "4", "--master-port",
                Integer.toString(freePort()), "mlp-train", "--ddp", "--device", "npu", "--profile", "--steps", "6",
                "--profile-dir", dir.toString(), "--profile-name", "job", "--profile-export", "chrome", "tensorboard",
                "csv");
        assertEquals(r.err(), 0, r.exitCode());
        assertTrue(r.out(), r.out().lines().anyMatch(l -> l.startsWith("[rank0]: step 6 loss ")));
        assertTrue("only rank 0 prints the loss: " + r.out(),
                r.out().lines().noneMatch(l -> l.matches("\\[rank[123]\\]: step \\d+ loss .*")));
        Set<Integer> ranks = new TreeSet<>();
        for (int rank = 0; rank < 4; rank++) {
            JsonNode root = read(dir.resolve("job-rank" + rank + ".trace.json.gz"));
            JsonNode info = root.get("distributedInfo");
            ranks.add(info.get("rank").asInt());
            assertEquals(4, info.get("world_size").asInt());
            assertEquals("npu:" + info.get("backend").asText().substring(4), info.get("backend").asText());
            assertEquals(4, info.get("pg_config").get(0).get("pg_size").asInt());
            List<JsonNode> comms = new ArrayList<>();
            long annotations = 0;
            long onDevice = 0;
            for (JsonNode e : root.get("traceEvents")) {
                if (e.path("name").asText().equals("record_param_comms")) {
                    comms.add(e);
                }
                if (e.path("name").asText().matches("(gloo|hccl):all_reduce")) {
                    annotations++;
                }
                // the gradient buckets and the loss each step averages live on the NPU: all of it goes through hccl
                if (e.path("name").asText().equals("hccl:all_reduce")) {
                    onDevice++;
                }
            }
            assertTrue("rank " + rank + " recorded no collective", !comms.isEmpty());
            // each collective ran as an HCCL kernel on the NPU's communication stream, launched from its op
            Set<Long> opIds = new TreeSet<>();
            comms.forEach(c -> opIds.add(c.get("args").get("External id").asLong()));
            long kernels = 0;
            for (JsonNode e : root.get("traceEvents")) {
                if (e.path("name").asText().startsWith("hcom_allReduce__")) {
                    kernels++;
                    assertEquals("kernel", e.get("cat").asText());
                    assertTrue(e.toString(), opIds.contains(e.get("args").get("External id").asLong()));
                    assertEquals("allreduce", e.get("args").get("Collective name").asText());
                }
            }
            assertTrue("rank " + rank + ": no gradient bucket went through HCCL", onDevice > 0);
            assertEquals(onDevice, kernels);
            // and step_trace_time.csv counts it as communication, part of it overlapping compute
            assertCommunicationCounted(dir.resolve("job-rank" + rank + "_csv").resolve("step_trace_time.csv"));
            assertEquals(comms.size(), annotations);
            for (JsonNode c : comms) {
                JsonNode a = c.get("args");
                assertEquals("cpu_op", c.get("cat").asText());
                assertEquals("allreduce", a.get("Collective name").asText());
                assertEquals(4, a.get("Group size").asInt());
                assertEquals("[0, 1, 2, 3]", a.get("Process Group Ranks").asText());
                // as Kineto writes them: the group's name a string, the counts numbers
                assertTrue(a.get("Process Group Name").isTextual());
                assertTrue(a.get("In msg nelems").isNumber());
                assertTrue(a.get("In msg nelems").asLong() > 0);
            }
        }
        assertEquals(Set.of(0, 1, 2, 3), ranks);
        // one TensorBoard run, four workers
        try (Stream<Path> files = Files.list(dir.resolve("job"))) {
            assertEquals(4, files.filter(p -> p.getFileName().toString().endsWith(".pt.trace.json.gz")).count());
        }
        // the four traces as one timeline: each rank's processes apart, each rank's collective kernels all there
        Path merged = tmp.getRoot().toPath().resolve("job.json.gz");
        LauncherProcess.Result m = LauncherProcess.run(FULL, "merge", dir.toString(), "-o", merged.toString());
        assertEquals(m.err(), 0, m.exitCode());
        for (int rank = 1; rank < 4; rank++) {
            assertTrue(m.out(), m.out().contains("rank " + rank + " (job-rank" + rank + ".trace.json.gz): "));
        }
        JsonNode job = read(merged);
        long[] kernelsByRank = new long[4];
        Set<String> processes = new TreeSet<>();
        for (JsonNode e : job.get("traceEvents")) {
            if (e.path("name").asText().equals("process_name")) {
                processes.add(e.get("args").get("name").asText().replaceAll(".*\\[(rank \\d)\\]$", "$1"));
            }
            if (e.path("name").asText().startsWith("hcom_allReduce__")) {
                kernelsByRank[(int) (e.get("pid").asLong() / 1000) - 1]++;
            }
        }
        assertEquals(Set.of("rank 0", "rank 1", "rank 2", "rank 3"), processes);
        for (int rank = 0; rank < 4; rank++) {
            long own = 0;
            for (JsonNode e : read(dir.resolve("job-rank" + rank + ".trace.json.gz")).get("traceEvents")) {
                own += e.path("name").asText().startsWith("hcom_allReduce__") ? 1 : 0;
            }
            assertEquals("rank " + rank + "'s collective kernels", own, kernelsByRank[rank]);
        }
    }

    @Test
    public void onSpyreAndMpsCollectivesAreNcclNamedKernelsOnAStreamOfTheirOwnLinkedToTheirOps() throws Exception {
        for (String device : List.of("spyre", "mps")) {
            Path dir = tmp.newFolder("ddp-" + device).toPath();
            LauncherProcess.Result r = LauncherProcess.run(FULL, "launch", "--nproc", "2", "--master-port",
                    Integer.toString(freePort()), "mlp-train", "--ddp", "--device", device, "--profile", "--steps",
                    "4", "--profile-dir", dir.toString(), "--profile-name", "job");
            assertEquals(device + ": " + r.err(), 0, r.exitCode());
            for (int rank = 0; rank < 2; rank++) {
                JsonNode root = read(dir.resolve("job-rank" + rank + ".trace.json.gz"));
                assertEquals(device + ":nccl", root.get("distributedInfo").get("backend").asText());
                Set<Long> opIds = new TreeSet<>();
                long scopes = 0;
                Set<Long> computeStreams = new TreeSet<>();
                List<JsonNode> kernels = new ArrayList<>();
                for (JsonNode e : root.get("traceEvents")) {
                    String name = e.path("name").asText();
                    if (name.equals("record_param_comms")) {
                        opIds.add(e.get("args").get("External id").asLong());
                    } else if (name.equals("nccl:all_reduce") && e.path("cat").asText().equals("user_annotation")) {
                        scopes++;
                    } else if (e.path("cat").asText().equals("kernel")) {
                        if (name.startsWith("nccl:")) {
                            kernels.add(e);
                        } else {
                            computeStreams.add(e.get("tid").asLong());
                        }
                    }
                }
                String where = device + " rank " + rank;
                assertTrue(where + ": no collective recorded", !opIds.isEmpty());
                assertEquals(where, opIds.size(), scopes);
                assertEquals(where + ": one kernel per collective", opIds.size(), kernels.size());
                for (JsonNode k : kernels) {
                    assertEquals(where, "nccl:all_reduce", k.get("name").asText());
                    assertTrue(where + ": " + k, opIds.contains(k.get("args").get("External id").asLong()));
                    assertEquals(where, "2", k.get("args").get("Group size").asText());
                    assertTrue(where + ": communication shares a stream with compute: " + k,
                            !computeStreams.contains(k.get("tid").asLong()));
                }
            }
        }
    }

    @Test
    public void aRankThatDiesTakesTheOthersDownWithAMessageNamingIt() throws Exception {
        try (LauncherProcess launch = LauncherProcess.start(FULL, "launch", "--nproc", "3", "--master-port",
                Integer.toString(freePort()), "--timeout", "20s", "mlp-train", "--ddp", "--batch-size", "63",
                "--steps", "100000")) {
            launch.awaitLine("[rank0]: step 2 loss");
            ProcessHandle launcher = ProcessHandle.current().children()
                    .filter(p -> p.info().arguments().map(a -> List.of(a).contains("launch")).orElse(false))
                    .findFirst().orElseThrow();
            List<ProcessHandle> ranks = launcher.children().toList();
            assertEquals(3, ranks.size());
            ProcessHandle victim = ranks.stream().filter(p -> p.info().arguments().isPresent()).reduce((a, b) -> b)
                    .orElseThrow();
            victim.destroyForcibly();
            String line = launch.awaitLine("; stopping the other ranks");
            assertTrue(line, line.matches("err: vantage: rank [0-2] exited with code \\d+; stopping the other ranks"));
            int code = launch.awaitExit();
            assertTrue("exit code " + code, code != 0);
            for (ProcessHandle rank : ranks) {
                assertTrue("rank process " + rank.pid() + " still runs", rank.onExit().get(30, TimeUnit.SECONDS)
                        != null && !rank.isAlive());
            }
        }
    }

    private static void assertCommunicationCounted(Path csv) throws Exception {
        long communication = 0;
        try (org.apache.commons.csv.CSVParser p = org.apache.commons.csv.CSVFormat.DEFAULT.builder().setHeader()
                .setSkipHeaderRecord(true).build().parse(Files.newBufferedReader(csv))) {
            for (org.apache.commons.csv.CSVRecord r : p) {
                double comm = Double.parseDouble(r.get("Communication"));
                double overlapped = Double.parseDouble(r.get("Overlapped"));
                double notOverlapped = Double.parseDouble(r.get("Communication(Not Overlapped)"));
                assertEquals(r.toString(), comm, overlapped + notOverlapped, 0.01);
                assertTrue(r.toString(), Double.parseDouble(r.get("Free")) >= 0);
                communication += Math.round(comm);
            }
        }
        assertTrue(csv + " counts no communication", communication > 0);
    }

    private static int freePort() throws Exception {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
