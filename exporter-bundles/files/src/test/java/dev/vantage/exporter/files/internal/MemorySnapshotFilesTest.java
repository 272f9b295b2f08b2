package dev.vantage.exporter.files.internal;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.vantage.profiler.api.MemorySnapshot.Block;
import dev.vantage.profiler.api.MemorySnapshot.Frame;
import dev.vantage.profiler.api.MemorySnapshot.Segment;
import dev.vantage.profiler.api.MemorySnapshot.TraceEntry;
import dev.vantage.profiler.api.MemorySnapshot;
import net.razorvine.pickle.Unpickler;

public class MemorySnapshotFilesTest {

    @Rule
    public final TemporaryFolder tmp = new TemporaryFolder();

    static final long SEG_A = 0x7f3a_0000_0000L;
    static final long SEG_B = 0x7f3a_0200_0000L;
    static final long SIDE_STREAM = 0x55d3_c0a1_b2c0L;
    static final long T0 = 1_700_000_000_123_456L;
    static final long MIB = 1 << 20;

    static final List<Frame> FORWARD = List.of(
            new Frame("dev/vantage/nn/Linear.java", 42, "dev.vantage.nn.Linear.forward"),
            new Frame("dev/vantage/workloads/Modèle.java", 17, "dev.vantage.workloads.Modèle.step"));
    static final List<Frame> BACKWARD = List.of(new Frame("dev/vantage/nn/Linear.java", 80,
            "dev.vantage.nn.Linear.backward"));

    /**
     * One device with two segments (a large one split into an allocated and an inactive block, a small one on a
     * side stream with an allocated, a pending-free and an inactive block) and a trace that led there, ending in
     * an OOM; a second device that recorded nothing.
     */
    static MemorySnapshot sample() {
        Segment large = new Segment(0, SEG_A, 20 * MIB, 4 * MIB, 4 * MIB, 4_000_000, 0, "large", List.of(
                new Block(SEG_A, 4 * MIB, 4_000_000, MemorySnapshot.ACTIVE_ALLOCATED, FORWARD),
                new Block(SEG_A + 4 * MIB, 16 * MIB, 0, MemorySnapshot.INACTIVE, List.of())));
        Segment small = new Segment(0, SEG_B, 2 * MIB, 512, 1536, 500, SIDE_STREAM, "small", List.of(
                new Block(SEG_B, 512, 500, MemorySnapshot.ACTIVE_ALLOCATED, BACKWARD),
                new Block(SEG_B + 512, 1024, 1000, MemorySnapshot.ACTIVE_PENDING_FREE, List.of()),
                new Block(SEG_B + 1536, 2 * MIB - 1536, 0, MemorySnapshot.INACTIVE, List.of())));
        List<TraceEntry> trace = List.of(
                entry("segment_alloc", SEG_A, 20 * MIB, 0, 0, List.of()),
                entry("alloc", SEG_A, 4 * MIB, 0, 2, FORWARD),
                entry("segment_alloc", SEG_B, 2 * MIB, SIDE_STREAM, 10, List.of()),
                entry("alloc", SEG_B, 512, SIDE_STREAM, 11, BACKWARD),
                entry("alloc", SEG_B + 512, 1024, SIDE_STREAM, 12, BACKWARD),
                entry("alloc", SEG_B + 1536, 2048, SIDE_STREAM, 13, BACKWARD),
                entry("free_requested", SEG_B + 1536, 2048, SIDE_STREAM, 20, List.of()),
                entry("free_completed", SEG_B + 1536, 2048, SIDE_STREAM, 21, List.of()),
                entry("free_requested", SEG_B + 512, 1024, SIDE_STREAM, 30, List.of()),
                new TraceEntry("oom", 0, 1L << 30, 0, T0 + 40, FORWARD, 50 * MIB));
        return new MemorySnapshot(List.of(large, small), List.of(trace, List.of()));
    }

    private static TraceEntry entry(String action, long addr, long size, long stream, long afterUs,
            List<Frame> frames) {
        return new TraceEntry(action, addr, size, stream, T0 + afterUs, frames, 0);
    }

    @Test
    public void picklesTheDictThatPyTorchsSnapshotReturns() throws IOException {
        Path file = tmp.getRoot().toPath().resolve("snapshot.pickle");
        MemorySnapshotFiles.write(sample(), file);

        Map<?, ?> root = unpickle(file);
        assertEquals(Set.of("segments", "device_traces", "allocator_settings"), root.keySet());
        assertEquals(Map.of(), root.get("allocator_settings"));

        List<?> segments = (List<?>) root.get("segments");
        assertEquals(2, segments.size());
        Map<?, ?> large = (Map<?, ?>) segments.get(0);
        assertEquals(Set.of("device", "address", "total_size", "allocated_size", "active_size", "requested_size",
                "stream", "segment_type", "segment_pool_id", "is_expandable", "frames", "blocks"), large.keySet());
        assertEquals(0L, number(large.get("device")));
        assertEquals(SEG_A, number(large.get("address")));
        assertEquals(20 * MIB, number(large.get("total_size")));
        assertEquals(4 * MIB, number(large.get("allocated_size")));
        assertEquals(4 * MIB, number(large.get("active_size")));
        assertEquals(4_000_000L, number(large.get("requested_size")));
        assertEquals(0L, number(large.get("stream")));
        assertEquals("large", large.get("segment_type"));
        // a Python tuple, which Pyrolite reads back as an array
        Object[] pool = (Object[]) large.get("segment_pool_id");
        assertEquals(2, pool.length);
        assertEquals(0L, number(pool[0]));
        assertEquals(0L, number(pool[1]));
        assertEquals(Boolean.FALSE, large.get("is_expandable"));
        assertEquals(List.of(), large.get("frames"));

        List<?> blocks = (List<?>) large.get("blocks");
        assertEquals(2, blocks.size());
        Map<?, ?> allocated = (Map<?, ?>) blocks.get(0);
        assertEquals(Set.of("address", "size", "requested_size", "state", "frames"), allocated.keySet());
        assertEquals(SEG_A, number(allocated.get("address")));
        assertEquals(4 * MIB, number(allocated.get("size")));
        assertEquals(4_000_000L, number(allocated.get("requested_size")));
        assertEquals("active_allocated", allocated.get("state"));
        List<?> frames = (List<?>) allocated.get("frames");
        assertEquals(2, frames.size());
        Map<?, ?> outer = (Map<?, ?>) frames.get(1);
        assertEquals("dev/vantage/workloads/Modèle.java", outer.get("filename"));
        assertEquals(17L, number(outer.get("line")));
        assertEquals("dev.vantage.workloads.Modèle.step", outer.get("name"));
        assertEquals("inactive", ((Map<?, ?>) blocks.get(1)).get("state"));

        Map<?, ?> small = (Map<?, ?>) segments.get(1);
        assertEquals(SIDE_STREAM, number(small.get("stream")));
        assertEquals("active_pending_free", ((Map<?, ?>) ((List<?>) small.get("blocks")).get(1)).get("state"));

        List<?> traces = (List<?>) root.get("device_traces");
        assertEquals(2, traces.size());
        assertEquals(List.of(), traces.get(1));
        List<?> trace = (List<?>) traces.get(0);
        assertEquals(10, trace.size());
        Map<?, ?> alloc = (Map<?, ?>) trace.get(1);
        assertEquals(Set.of("action", "addr", "size", "stream", "time_us", "frames"), alloc.keySet());
        assertEquals("alloc", alloc.get("action"));
        assertEquals(SEG_A, number(alloc.get("addr")));
        assertEquals(4 * MIB, number(alloc.get("size")));
        assertEquals(T0 + 2, number(alloc.get("time_us")));
        assertEquals("dev.vantage.nn.Linear.forward", ((Map<?, ?>) ((List<?>) alloc.get("frames")).get(0))
                .get("name"));
        Map<?, ?> oom = (Map<?, ?>) trace.get(9);
        assertEquals(Set.of("action", "device_free", "size", "stream", "time_us", "frames"), oom.keySet());
        assertEquals("oom", oom.get("action"));
        assertEquals(50 * MIB, number(oom.get("device_free")));
        assertEquals(1L << 30, number(oom.get("size")));
    }

    @Test
    public void pickleUsesOnlyWhatMemoryVizJsReads() throws IOException {
        Path file = tmp.getRoot().toPath().resolve("snapshot.pickle");
        MemorySnapshotFiles.write(sample(), file);

        Set<String> used = PickleOpcodes.scan(Files.readAllBytes(file));
        // the scan really walked the whole stream: big numbers, tuples, booleans and strings were all seen
        assertTrue(used.toString(), used.containsAll(List.of("PROTO", "LONG1", "TUPLE2", "NEWFALSE", "BINUNICODE",
                "EMPTY_DICT", "SETITEMS", "APPENDS", "STOP")));
    }

    @Test
    public void keepsToReadableOpcodesPastTheMemoLimitOf256() throws IOException {
        List<TraceEntry> trace = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            trace.add(entry(i % 2 == 0 ? "alloc" : "free_completed", SEG_A + 512L * (i / 2), 512, 0, i, FORWARD));
        }
        Path file = tmp.getRoot().toPath().resolve("long.pickle");
        MemorySnapshotFiles.write(new MemorySnapshot(List.of(), List.of(trace)), file);

        Set<String> used = PickleOpcodes.scan(Files.readAllBytes(file));
        assertFalse(used.toString(), used.contains("BINPUT"));
        List<?> read = (List<?>) ((List<?>) unpickle(file).get("device_traces")).get(0);
        assertEquals(2000, read.size());
        assertEquals(SEG_A + 512L * 999, number(((Map<?, ?>) read.get(1999)).get("addr")));
    }

    @Test
    public void writesJsonWithTheSameStructureAndValuesWhenTheNameEndsInJson() throws IOException {
        Path json = tmp.getRoot().toPath().resolve("snapshot.JSON");
        Path pickle = tmp.getRoot().toPath().resolve("snapshot.pickle");
        MemorySnapshotFiles.write(sample(), json);
        MemorySnapshotFiles.write(sample(), pickle);

        assertEquals('{', Files.readAllBytes(json)[0]);
        JsonNode root = new ObjectMapper().readTree(json.toFile());
        JsonNode large = root.get("segments").get(0);
        assertTrue(large.get("address").isIntegralNumber());
        assertEquals(SEG_A, large.get("address").longValue());
        assertEquals("large", large.get("segment_type").textValue());
        assertEquals(2, large.get("segment_pool_id").size());
        assertEquals(0, large.get("segment_pool_id").get(1).intValue());
        assertTrue(large.get("is_expandable").isBoolean());
        assertFalse(large.get("is_expandable").booleanValue());
        JsonNode frame = large.get("blocks").get(0).get("frames").get(1);
        assertEquals("dev/vantage/workloads/Modèle.java", frame.get("filename").textValue());
        assertEquals(17, frame.get("line").intValue());
        JsonNode oom = root.get("device_traces").get(0).get(9);
        assertEquals(50 * MIB, oom.get("device_free").longValue());
        assertFalse(oom.has("addr"));
        assertTrue(root.get("allocator_settings").isObject());
        assertEquals(0, root.get("allocator_settings").size());

        // the whole tree, value for value, is the pickle's (a tuple is the JSON array)
        assertEquals(plain(unpickle(pickle)), plain(new ObjectMapper().convertValue(root, Object.class)));
    }

    @Test
    public void addressesAbove2To31RoundTripExactly() throws IOException {
        long[] addresses = {(1L << 31), (1L << 31) + 1, (1L << 32) - 1, (1L << 32) + 7, SEG_A, (1L << 48) + 3,
            Long.MAX_VALUE};
        List<Segment> segments = new ArrayList<>();
        for (long a : addresses) {
            segments.add(new Segment(0, a, 1, 0, 0, 0, 0, "small",
                    List.of(new Block(a, 1, 0, MemorySnapshot.INACTIVE, List.of()))));
        }
        MemorySnapshot snapshot = new MemorySnapshot(segments, List.of(List.of()));
        Path pickle = tmp.getRoot().toPath().resolve("big.pickle");
        Path json = tmp.getRoot().toPath().resolve("big.json");
        MemorySnapshotFiles.write(snapshot, pickle);
        MemorySnapshotFiles.write(snapshot, json);

        PickleOpcodes.scan(Files.readAllBytes(pickle));
        List<?> fromPickle = (List<?>) unpickle(pickle).get("segments");
        JsonNode fromJson = new ObjectMapper().readTree(json.toFile()).get("segments");
        long[] pickled = new long[addresses.length];
        long[] jsoned = new long[addresses.length];
        for (int i = 0; i < addresses.length; i++) {
            pickled[i] = number(((Map<?, ?>) fromPickle.get(i)).get("address"));
            jsoned[i] = fromJson.get(i).get("address").longValue();
        }
        assertArrayEquals(addresses, pickled);
        assertArrayEquals(addresses, jsoned);
    }

    @Test
    public void failedWriteLeavesNothingUnderTheTargetName() throws IOException {
        Path notAFolder = tmp.newFile("plain-file").toPath();
        Path target = notAFolder.resolve("snapshot.pickle");
        try {
            MemorySnapshotFiles.write(sample(), target);
            fail("wrote below a regular file");
        } catch (IOException expected) {
            assertFalse(Files.exists(target));
        }

        // the rename fails after the whole file was written: the target keeps what it was, no temporary remains
        Path occupied = tmp.newFolder("occupied.json").toPath();
        Files.writeString(occupied.resolve("keep"), "x");
        try {
            MemorySnapshotFiles.write(sample(), occupied);
            fail("replaced a non-empty folder");
        } catch (IOException expected) {
            assertTrue(Files.isDirectory(occupied));
            assertTrue(Files.exists(occupied.resolve("keep")));
        }
        try (Stream<Path> s = Files.list(tmp.getRoot().toPath())) {
            assertEquals(List.of("occupied.json", "plain-file"),
                    s.map(p -> p.getFileName().toString()).sorted().toList());
        }
    }

    @Test
    public void replacesAnEarlierFileWhole() throws IOException {
        Path file = tmp.getRoot().toPath().resolve("snapshot.pickle");
        MemorySnapshotFiles.write(sample(), file);
        MemorySnapshotFiles.write(MemorySnapshot.empty(1), file);

        Map<?, ?> root = unpickle(file);
        assertEquals(List.of(), root.get("segments"));
        assertEquals(List.of(List.of(), List.of()), root.get("device_traces"));
    }

    private static Map<?, ?> unpickle(Path file) throws IOException {
        Object o = new Unpickler().loads(Files.readAllBytes(file));
        assertNotNull(o);
        return (Map<?, ?>) o;
    }

    private static long number(Object o) {
        return ((Number) o).longValue();
    }

    /** The value with every integer as a Long, every tuple as a List and every dict keyed in sorted order. */
    private static Object plain(Object o) {
        if (o instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            for (Object k : new TreeSet<>(m.keySet().stream().map(String.class::cast).toList())) {
                out.put((String) k, plain(m.get(k)));
            }
            return out;
        }
        if (o instanceof Object[] a) {
            return plain(List.of(a));
        }
        if (o instanceof List<?> l) {
            return l.stream().map(MemorySnapshotFilesTest::plain).toList();
        }
        if (o instanceof Number n) {
            return n.longValue();
        }
        return o;
    }

    /**
     * Walks a pickle opcode by opcode, with argument lengths from the pickle opcode table ({@code pickletools}),
     * and fails on anything MemoryViz.js's unpickler does not read: a protocol outside 2-4, an opcode outside its
     * list, a LONG1 of more than 8 bytes, or bytes after STOP. Returns the names of the opcodes seen.
     */
    static final class PickleOpcodes {

        /** Opcode to name, for the opcodes MemoryViz.js reads; their argument lengths are in {@link #scan}. */
        private static final Map<Integer, String> READABLE = Map.ofEntries(
                Map.entry(0x80, "PROTO"), Map.entry(0x95, "FRAME"),
                Map.entry((int) '}', "EMPTY_DICT"), Map.entry((int) ']', "EMPTY_LIST"),
                Map.entry((int) ')', "EMPTY_TUPLE"), Map.entry((int) '(', "MARK"),
                Map.entry((int) 's', "SETITEM"), Map.entry((int) 'u', "SETITEMS"),
                Map.entry((int) 'a', "APPEND"), Map.entry((int) 'e', "APPENDS"),
                Map.entry((int) 'J', "BININT"), Map.entry((int) 'K', "BININT1"), Map.entry((int) 'M', "BININT2"),
                Map.entry(0x8a, "LONG1"), Map.entry(0x8c, "SHORT_BINUNICODE"), Map.entry((int) 'X', "BINUNICODE"),
                Map.entry((int) 'G', "BINFLOAT"), Map.entry((int) 'N', "NONE"),
                Map.entry(0x88, "NEWTRUE"), Map.entry(0x89, "NEWFALSE"),
                Map.entry(0x85, "TUPLE1"), Map.entry(0x86, "TUPLE2"), Map.entry(0x87, "TUPLE3"),
                Map.entry(0x94, "MEMOIZE"), Map.entry((int) 'q', "BINPUT"), Map.entry((int) 'h', "BINGET"),
                Map.entry((int) '.', "STOP"));

        private PickleOpcodes() {
        }

        static Set<String> scan(byte[] b) {
            Set<String> seen = new TreeSet<>();
            assertTrue("empty pickle", b.length >= 3);
            assertEquals("first opcode", 0x80, b[0] & 0xff);
            int protocol = b[1] & 0xff;
            assertTrue("protocol " + protocol, protocol >= 2 && protocol <= 4);
            int p = 0;
            while (true) {
                assertTrue("no STOP before the end", p < b.length);
                int op = b[p] & 0xff;
                String name = READABLE.get(op);
                if (name == null) {
                    fail(String.format("opcode 0x%02x ('%c') at %d is not read by MemoryViz.js", op, (char) op, p));
                }
                seen.add(name);
                p++;
                switch (name) {
                    case "PROTO", "BININT1", "BINPUT", "BINGET" -> p += 1;
                    case "BININT2" -> p += 2;
                    case "BININT" -> p += 4;
                    case "FRAME", "BINFLOAT" -> p += 8;
                    case "LONG1" -> {
                        int n = b[p] & 0xff;
                        assertTrue("LONG1 of " + n + " bytes at " + (p - 1), n <= 8);
                        p += 1 + n;
                    }
                    case "SHORT_BINUNICODE" -> p += 1 + (b[p] & 0xff);
                    case "BINUNICODE" -> {
                        long n = (b[p] & 0xffL) | (b[p + 1] & 0xffL) << 8 | (b[p + 2] & 0xffL) << 16
                                | (b[p + 3] & 0xffL) << 24;
                        p += 4 + (int) n;
                    }
                    case "STOP" -> {
                        assertEquals("bytes after STOP", b.length, p);
                        return seen;
                    }
                    default -> {
                        // no argument
                    }
                }
            }
        }
    }
}
