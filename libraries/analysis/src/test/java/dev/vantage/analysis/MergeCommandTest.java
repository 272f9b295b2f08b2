package dev.vantage.analysis;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * {@code vantage merge} on two ranks of a real PyTorch training job (HTA's test data, in the trace engine's test
 * resources): one file with each rank's processes apart, every event of each rank once, and the clock shift the
 * alignment finds, checked by moving one rank's clock by a known amount first.
 */
public class MergeCommandTest {

    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    private static final String JOB = "/dev/vantage/trace/engine/device/hta/trace_filter/";
    private static final Pattern SHIFT = Pattern.compile("rank 1 \\([^)]*\\): shifted ([-+0-9.]+) us, on (\\d+) of");

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Test
    public void twoRanksBecomeOneTimelineWithEachRanksProcessesApart() throws IOException {
        Path job = job();
        Path merged = tmp.getRoot().toPath().resolve("job.trace.json.gz");
        VerbRun r = VerbRun.verb("merge", job.toString(), "-o", merged.toString());
        assertEquals(r.err(), 0, r.code());
        JsonNode m = read(merged);
        // every complete event of both files, once
        assertEquals(completeEvents(job.resolve("sampled_rank-0.json.gz")) + completeEvents(
                job.resolve("sampled_rank-1.json.gz")), count(m, "X"));
        Set<String> names = new HashSet<>();
        Set<Long> rank0 = new HashSet<>();
        Set<Long> rank1 = new HashSet<>();
        for (JsonNode e : m.get("traceEvents")) {
            if (e.path("name").asText().equals("process_name")) {
                String name = e.get("args").get("name").asText();
                names.add(name);
                (name.endsWith("[rank 0]") ? rank0 : rank1).add(e.get("pid").asLong());
                assertTrue(name, name.endsWith("[rank 0]") || name.endsWith("[rank 1]"));
            }
        }
        assertTrue(names.toString(), rank0.size() >= 2 && rank1.size() >= 2);
        assertTrue("no process is both ranks'", rank0.stream().noneMatch(rank1::contains));
        // the shift printed is the one in the file
        Matcher shift = SHIFT.matcher(r.out());
        assertTrue(r.out(), shift.find());
        JsonNode other = m.get("otherData");
        assertEquals("0", other.get("vantage.merge.reference_rank").asText());
        assertEquals(new BigDecimal(shift.group(1)), new BigDecimal(other.get("vantage.merge.rank1.shift_us").asText())
                .setScale(3));
        assertEquals(new BigDecimal("0.000"), new BigDecimal(other.get("vantage.merge.rank0.shift_us").asText())
                .setScale(3));
    }

    /**
     * Rank 1's clock moved 5 s ahead before the merge: the alignment finds a shift 5 s smaller, exactly, and the merged
     * timeline is the same event for event.
     */
    @Test
    public void aRankWhoseClockIsFiveSecondsAheadIsBroughtBackExactly() throws IOException {
        Path job = job();
        Path plain = tmp.getRoot().toPath().resolve("plain.json");
        VerbRun before = VerbRun.verb("merge", job.toString(), "-o", plain.toString());
        assertEquals(before.err(), 0, before.code());

        Path ahead = tmp.newFolder("ahead").toPath();
        Files.copy(job.resolve("sampled_rank-0.json.gz"), ahead.resolve("sampled_rank-0.json.gz"));
        JsonNode rank1 = read(job.resolve("sampled_rank-1.json.gz"));
        BigDecimal fiveSeconds = new BigDecimal(5_000_000);
        for (JsonNode e : rank1.get("traceEvents")) {
            if (e.has("ts") && e.get("ts").isNumber()) {
                ((ObjectNode) e).put("ts", e.get("ts").decimalValue().add(fiveSeconds));
            }
        }
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(ahead.resolve("sampled_rank-1.json.gz")))) {
            JSON.writeValue(out, rank1);
        }
        Path shifted = tmp.getRoot().toPath().resolve("shifted.json");
        VerbRun after = VerbRun.verb("merge", ahead.toString(), "-o", shifted.toString());
        assertEquals(after.err(), 0, after.code());

        Matcher b = SHIFT.matcher(before.out());
        Matcher a = SHIFT.matcher(after.out());
        assertTrue(before.out(), b.find());
        assertTrue(after.out(), a.find());
        assertEquals(new BigDecimal(b.group(1)).subtract(fiveSeconds), new BigDecimal(a.group(1)));
        assertEquals("as many collectives matched", b.group(2), a.group(2));
        // in the files as they are, two of rank 1's ten SendRecv kernels end with one of rank 0's, 0 and 8 us apart
        // (its other peers are among the job's other 126 ranks): the clocks already agree, and the shift is that small
        assertEquals("collectives matched", "2", b.group(2));
        assertTrue("shift " + b.group(1), new BigDecimal(b.group(1)).abs().compareTo(new BigDecimal(20)) <= 0);
        List<String> plainEvents = events(read(plain));
        List<String> shiftedEvents = events(read(shifted));
        assertEquals(plainEvents.size(), shiftedEvents.size());
        for (int i = 0; i < plainEvents.size(); i++) {
            assertEquals("event " + i, plainEvents.get(i), shiftedEvents.get(i));
        }
    }

    /**
     * Every track of the merged file nests, as Perfetto's JSON importer needs: a copy written over half of a kernel
     * on one of rank 1's streams (as PyTorch traces happen to record, a few microseconds deep) goes to a lane of its
     * own, a thread of the same device named after the stream, and the output says so; every event is still there.
     */
    @Test
    public void aSliceOverlappingAnotherOnItsTrackGoesToALaneOfItsOwnSoThatEveryTrackNests() throws IOException {
        Path job = tmp.newFolder("overlap").toPath();
        Files.copy(job().resolve("sampled_rank-0.json.gz"), job.resolve("sampled_rank-0.json.gz"));
        JsonNode rank1 = read(job().resolve("sampled_rank-1.json.gz"));
        ObjectNode kernel = null;
        for (JsonNode e : rank1.get("traceEvents")) {
            if ("kernel".equals(e.path("cat").asText()) && e.get("dur").decimalValue().compareTo(BigDecimal.TEN) > 0) {
                kernel = (ObjectNode) e;
                break;
            }
        }
        assertTrue(kernel != null);
        ObjectNode copy = kernel.deepCopy();
        copy.put("cat", "gpu_memcpy");
        copy.put("name", "Memcpy DtoD (Device -> Device) overlapping");
        copy.put("ts", kernel.get("ts").decimalValue().add(kernel.get("dur").decimalValue().divide(new BigDecimal(2))));
        ((ObjectNode) copy.get("args")).remove("correlation");
        ((com.fasterxml.jackson.databind.node.ArrayNode) rank1.get("traceEvents")).add(copy);
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(job.resolve("sampled_rank-1.json.gz")))) {
            JSON.writeValue(out, rank1);
        }
        Path merged = tmp.getRoot().toPath().resolve("overlap.json");
        VerbRun r = VerbRun.verb("merge", job.toString(), "-o", merged.toString());
        assertEquals(r.err(), 0, r.code());
        assertTrue(r.out(), r.out().contains("1 slice that overlapped another on its track"));
        JsonNode m = read(merged);
        assertEquals(completeEvents(job.resolve("sampled_rank-0.json.gz")) + completeEvents(
                job.resolve("sampled_rank-1.json.gz")), count(m, "X"));
        // every track nests: sorted by start (longer first), no slice ends after the open one it starts in
        java.util.Map<String, List<BigDecimal[]>> tracks = new java.util.HashMap<>();
        JsonNode moved = null;
        for (JsonNode e : m.get("traceEvents")) {
            if ("X".equals(e.path("ph").asText())) {
                BigDecimal ts = e.get("ts").decimalValue();
                tracks.computeIfAbsent(e.get("pid").asText() + "/" + e.get("tid").asText(), k -> new ArrayList<>())
                        .add(new BigDecimal[] {ts, ts.add(e.path("dur").decimalValue())});
                if (e.get("name").asText().endsWith(" overlapping")) {
                    moved = e;
                }
            }
        }
        for (Map.Entry<String, List<BigDecimal[]>> t : tracks.entrySet()) {
            List<BigDecimal[]> slices = t.getValue();
            slices.sort((a, b) -> a[0].compareTo(b[0]) != 0 ? a[0].compareTo(b[0]) : b[1].compareTo(a[1]));
            List<BigDecimal> open = new ArrayList<>();
            for (BigDecimal[] x : slices) {
                while (!open.isEmpty() && open.get(open.size() - 1).compareTo(x[0]) <= 0) {
                    open.remove(open.size() - 1);
                }
                assertTrue(t.getKey() + " at " + x[0], open.isEmpty() || x[1].compareTo(open.get(open.size() - 1)) <= 0);
                open.add(x[1]);
            }
        }
        assertTrue(moved != null);
        long lane = moved.get("tid").asLong();
        assertTrue("tid " + lane, lane > MergeCommand.Lanes.LANE_STRIDE);
        boolean named = false;
        for (JsonNode e : m.get("traceEvents")) {
            named |= "thread_name".equals(e.path("name").asText()) && e.get("tid").asLong() == lane
                    && e.get("pid").asLong() == moved.get("pid").asLong()
                    && e.get("args").get("name").asText().contains("(overlapping slices, lane 1)");
        }
        assertTrue("the lane is named", named);
    }

    /**
     * {@code -o job.pftrace}: the same merge as Perfetto's protobuf, read back with protobuf's own parser: every
     * complete event of the JSON merge is a slice on its thread's track, begun and ended in nesting order, at the same
     * nanoseconds; each rank's processes apart and named; the shifts in the trace's attributes; the launch flows on
     * both their slices.
     */
    @Test
    public void thePerfettoMergeHasTheJsonMergesSlicesNestedOnTheirTracks() throws IOException {
        Path job = job();
        Path json = tmp.getRoot().toPath().resolve("job.json");
        Path pftrace = tmp.getRoot().toPath().resolve("job.pftrace.gz");
        assertEquals(0, VerbRun.verb("merge", job.toString(), "-o", json.toString()).code());
        VerbRun r = VerbRun.verb("merge", job.toString(), "-o", pftrace.toString());
        assertEquals(r.err(), 0, r.code());
        JsonNode m = read(json);
        long base = m.get("baseTimeNanoseconds").asLong();
        // the JSON's slices per thread, as "pid/tid" -> sorted "start end" in ns
        Map<String, List<String>> expected = new java.util.TreeMap<>();
        for (JsonNode e : m.get("traceEvents")) {
            if (e.path("ph").asText().equals("X")) {
                long start = base + e.get("ts").decimalValue().movePointRight(3).setScale(0,
                        java.math.RoundingMode.HALF_EVEN).longValueExact();
                long dur = e.get("dur").decimalValue().movePointRight(3).setScale(0,
                        java.math.RoundingMode.HALF_EVEN).longValueExact();
                expected.computeIfAbsent(e.get("pid").asText() + "/" + e.get("tid").asText(), k -> new ArrayList<>())
                        .add(start + " " + (start + Math.max(0, dur)));
            }
        }
        expected.values().forEach(l -> l.sort(null));
        dev.vantage.perfetto.format.proto.Trace trace;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(pftrace))) {
            trace = dev.vantage.perfetto.format.proto.Trace.parseFrom(in);
        }
        Map<Long, String> threadOf = new java.util.HashMap<>();
        Map<Long, String> processNames = new java.util.HashMap<>();
        Map<String, String> attributes = new java.util.HashMap<>();
        Map<Long, java.util.ArrayDeque<Long>> open = new java.util.HashMap<>();
        Map<String, List<String>> actual = new java.util.TreeMap<>();
        Map<Long, Integer> flowEnds = new java.util.HashMap<>();
        for (dev.vantage.perfetto.format.proto.TracePacket p : trace.getPacketList()) {
            if (p.hasTraceAttributes()) {
                p.getTraceAttributes().getAttributeList().forEach(a -> attributes.put(a.getKey(), a.getStringValue()));
            }
            if (p.hasTrackDescriptor() && p.getTrackDescriptor().hasThread()) {
                var t = p.getTrackDescriptor().getThread();
                threadOf.put(p.getTrackDescriptor().getUuid(), t.getPid() + "/" + t.getTid());
            }
            if (p.hasTrackDescriptor() && p.getTrackDescriptor().hasProcess()) {
                var pr = p.getTrackDescriptor().getProcess();
                processNames.put((long) pr.getPid(), pr.getProcessName());
            }
            if (!p.hasTrackEvent()) {
                continue;
            }
            var e = p.getTrackEvent();
            var stack = open.computeIfAbsent(e.getTrackUuid(), u -> new java.util.ArrayDeque<>());
            e.getFlowIdsList().forEach(f -> flowEnds.merge(f, 1, Integer::sum));
            e.getTerminatingFlowIdsList().forEach(f -> flowEnds.merge(f, 1, Integer::sum));
            switch (e.getType()) {
                case TYPE_SLICE_BEGIN -> {
                    // a slice begins no earlier than the slice open on its track (ends are checked below)
                    assertTrue(stack.isEmpty() || p.getTimestamp() >= stack.peek());
                    stack.push(p.getTimestamp());
                    actual.computeIfAbsent(threadOf.get(e.getTrackUuid()), k -> new ArrayList<>())
                            .add(p.getTimestamp() + " ");
                }
                case TYPE_SLICE_END -> {
                    assertTrue("an end with no slice open", !stack.isEmpty());
                    assertTrue("an end before its slice's start", p.getTimestamp() >= stack.pop());
                    List<String> slices = actual.get(threadOf.get(e.getTrackUuid()));
                    // the latest slice of the track still without its end is the one this end closes
                    for (int i = slices.size() - 1; i >= 0; i--) {
                        if (slices.get(i).endsWith(" ")) {
                            slices.set(i, slices.get(i) + p.getTimestamp());
                            break;
                        }
                    }
                }
                default -> {
                }
            }
        }
        open.values().forEach(stack -> assertTrue("every slice ends", stack.isEmpty()));
        actual.values().forEach(l -> l.sort(null));
        // a track the JSON names by text (the profile's span, "Spans [rank R]") has a number in Perfetto: those
        // tracks' slices are compared together
        fold(expected, "text");
        fold(actual, "text");
        assertEquals(expected.keySet(), actual.keySet());
        for (String track : expected.keySet()) {
            List<String> missing = new ArrayList<>(expected.get(track));
            missing.removeAll(actual.get(track));
            List<String> extra = new ArrayList<>(actual.get(track));
            extra.removeAll(expected.get(track));
            assertEquals(track + ": missing " + missing.subList(0, Math.min(5, missing.size())) + ", not in the JSON "
                    + extra.subList(0, Math.min(5, extra.size())), expected.get(track), actual.get(track));
        }
        // each rank's processes apart, named; the shifts as the JSON's otherData says
        assertTrue(processNames.toString(), processNames.values().stream().anyMatch(n -> n.endsWith("[rank 0]"))
                && processNames.values().stream().anyMatch(n -> n.endsWith("[rank 1]")));
        assertEquals(m.get("otherData").get("vantage.merge.rank1.shift_us").asText(),
                attributes.get("vantage.merge.rank1.shift_us"));
        // the launches' flows: a flow id on the runtime call and on its kernel
        long joined = flowEnds.values().stream().filter(n -> n == 2).count();
        assertTrue(joined + " flows joined", joined > 1000);
        assertTrue(r.out(), r.out().contains("merged 2 ranks into " + pftrace));
    }

    @Test
    public void oneTraceOrAnotherFormatIsRefusedBeforeAnyWrite() throws IOException {
        Path job = job();
        Path out = tmp.getRoot().toPath().resolve("one.json");
        VerbRun one = VerbRun.verb("merge", job.resolve("sampled_rank-0.json.gz").toString(), "-o", out.toString());
        assertEquals(2, one.code());
        assertTrue(one.err(), one.err().contains("two ranks or more"));
        VerbRun other = VerbRun.verb("merge", job.toString(), "-o", tmp.getRoot().toPath().resolve("x.trace")
                .toString());
        assertEquals(2, other.code());
        assertTrue(other.err(), other.err().contains("*.json, *.json.gz, *.pftrace or *.pftrace.gz"));
        VerbRun same = VerbRun.verb("merge", job.toString(), job.resolve("sampled_rank-0.json.gz").toString(), "-o",
                job.resolve("sampled_rank-0.json.gz").toString());
        assertEquals(2, same.code());
        assertEquals(List.of("one.json", "x.trace"), List.of("one.json", "x.trace").stream()
                .filter(n -> !Files.exists(tmp.getRoot().toPath().resolve(n))).toList());
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /** Moves the slices of every track whose pid is not merge's number (rank + 1) * 1000 + n under one key. */
    private static void fold(Map<String, List<String>> tracks, String key) {
        List<String> folded = new ArrayList<>();
        tracks.entrySet().removeIf(e -> {
            long pid = Long.parseLong(e.getKey().matches("\\d+/.*") ? e.getKey().substring(0, e.getKey().indexOf('/'))
                    : "-1");
            if (pid >= 1000 && pid < 1_000_000) {
                return false;
            }
            folded.addAll(e.getValue());
            return true;
        });
        folded.sort(null);
        tracks.put(key, folded);
    }

    private Path job() throws IOException {
        Path job = tmp.getRoot().toPath().resolve("job");
        if (!Files.isDirectory(job)) {
            Files.createDirectories(job);
            for (String n : List.of("sampled_rank-0.json.gz", "sampled_rank-1.json.gz")) {
                try (InputStream in = MergeCommandTest.class.getResourceAsStream(JOB + n)) {
                    Files.copy(in, job.resolve(n));
                }
            }
        }
        return job;
    }

    private static JsonNode read(Path file) throws IOException {
        try (InputStream raw = Files.newInputStream(file);
                InputStream in = file.toString().endsWith(".gz") ? new GZIPInputStream(raw) : raw) {
            return JSON.readTree(in);
        }
    }

    private static long count(JsonNode trace, String ph) {
        long n = 0;
        for (JsonNode e : trace.get("traceEvents")) {
            n += ph.equals(e.path("ph").asText()) ? 1 : 0;
        }
        return n;
    }

    /** The complete events of a PyTorch trace that carry a duration: kernels, ops, runtime calls, steps. */
    private static long completeEvents(Path file) throws IOException {
        long n = 0;
        for (JsonNode e : read(file).get("traceEvents")) {
            n += "X".equals(e.path("ph").asText()) && !"Trace".equals(e.path("cat").asText()) ? 1 : 0;
        }
        // the engine's writer adds one span of the whole profile, as Kineto does
        return n + 1;
    }

    /** A trace's events, each as its JSON text, sorted. */
    private static List<String> events(JsonNode trace) {
        List<String> out = new ArrayList<>();
        trace.get("traceEvents").forEach(e -> out.add(e.toString()));
        out.sort(null);
        return out;
    }
}
