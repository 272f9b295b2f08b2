package dev.vantage.analysis;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.GZIPOutputStream;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.vantage.trace.engine.AnalysedTrace;
import dev.vantage.trace.engine.device.ClockAlignment;
import dev.vantage.trace.engine.write.KinetoJsonWriter;

/**
 * {@code vantage merge TRACE|DIR... -o FILE}: one Kineto JSON trace (or Perfetto trace, {@link MergedPftrace}) of a
 * job's ranks, each rank's processes its own
 * (named {@code [rank R]}), every rank's times moved onto the lowest rank's clock by the shift {@link ClockAlignment}
 * finds from the ends of their collectives. Each trace is read once by the engine and written by its Kineto writer
 * to a temporary file while its collectives are taken; the shifts are found once all are read; the temporary files
 * are then copied into the merged file event by event, their times, process ids and flow ids rewritten. The shifts go
 * to the file's {@code otherData} and to the output, one line per rank.
 */
final class MergeCommand {

    /** Each rank's process ids become {@code (rank + 1) * PID_STRIDE + n}, n counting its processes. */
    static final long PID_STRIDE = 1000;
    /** Each rank's flow ids get the rank above these bits, so that no two ranks' flows join. */
    static final int FLOW_RANK_SHIFT = 40;

    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN);

    private MergeCommand() {
    }

    /** One rank read: its trace written by the engine, and its collectives. */
    private record Rank(int rank, Path source, Path written, long startNanos, Map<String, long[]> collectives) {
    }

    static int run(Options.Merge o, PrintStream out, PrintStream err) throws IOException {
        List<Path> traces = TraceAnalyses.traces(o.inputs());
        if (traces.size() < 2) {
            throw new IllegalArgumentException("merge needs the traces of two ranks or more; " + traces.size()
                    + " given");
        }
        Path work = Files.createTempDirectory(o.output().getParent(), ".vantage-merge-");
        try {
            Map<Integer, Rank> ranks = new TreeMap<>();
            for (int i = 0; i < traces.size(); i++) {
                Path p = traces.get(i);
                Path written = work.resolve(i + ".json");
                try (AnalysedTrace trace = TraceInputs.open(p, o.strict(), err);
                        OutputStream w = new BufferedOutputStream(Files.newOutputStream(written))) {
                    int rank = trace.rank() >= 0 ? trace.rank() : ConvertCommand.rankInName(p, i);
                    Rank other = ranks.get(rank);
                    if (other != null) {
                        throw new IllegalArgumentException("two traces are rank " + rank + " ("
                                + other.source().getFileName() + ", " + p.getFileName() + "): give the traces of one run");
                    }
                    Map<String, long[]> collectives = ClockAlignment.collectives(trace.data());
                    KinetoJsonWriter.write(trace, p.toString(), w);
                    ranks.put(rank, new Rank(rank, p, written, trace.startEpochNanos(), collectives));
                }
            }
            Map<Integer, Map<String, long[]>> groups = new TreeMap<>();
            ranks.forEach((r, x) -> groups.put(r, x.collectives()));
            Map<Integer, ClockAlignment.Shift> shifts = ClockAlignment.shifts(groups);
            Path partial = work.resolve("merged");
            int moved;
            String name = o.output().getFileName().toString();
            try (OutputStream file = Files.newOutputStream(partial);
                    OutputStream sink = name.endsWith(".gz")
                            ? new GZIPOutputStream(file, 1 << 16) : new BufferedOutputStream(file, 1 << 16)) {
                moved = write(sink, name.endsWith(".pftrace") || name.endsWith(".pftrace.gz"), ranks, shifts,
                        o.output());
            }
            Files.move(partial, o.output(), StandardCopyOption.REPLACE_EXISTING);
            int reference = ranks.keySet().iterator().next();
            out.println("merged " + ranks.size() + " ranks into " + o.output() + "; clocks aligned on rank "
                    + reference + "'s:");
            for (ClockAlignment.Shift s : shifts.values()) {
                out.println(line(s, reference, ranks.get(s.rank()).source()));
            }
            if (moved > 0) {
                out.println("  " + moved + (moved == 1 ? " slice" : " slices") + " that overlapped another on its track"
                        + " without nesting in it moved to a lane of its own (a thread named '... (overlapping"
                        + " slices, lane N)'), so that every track nests");
            }
            return 0;
        } finally {
            try (var files = Files.list(work)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(work);
        }
    }

    /** One rank's line of the output. */
    static String line(ClockAlignment.Shift s, int reference, Path source) {
        String what;
        if (s.rank() == reference) {
            what = "reference, " + s.kernels() + " communication kernels";
        } else if (s.matched() == 0) {
            what = "not shifted: no one shift brings " + ClockAlignment.MIN_MATCHES + " or more of its " + s.kernels()
                    + " communication kernels' ends onto rank " + reference + "'s (within "
                    + ClockAlignment.TOLERANCE_NANOS / 1000 + " us)";
        } else {
            what = String.format("shifted %+.3f us, on %d of its %d communication kernels (within %.3f us)",
                    s.nanos() / 1000.0, s.matched(), s.kernels(), s.spreadNanos() / 1000.0);
        }
        return "  rank " + s.rank() + " (" + source.getFileName() + "): " + what;
    }

    /** Where the merged events go: the JSON's array, or a Perfetto trace ({@link MergedPftrace}). */
    interface Sink {
        void event(ObjectNode e) throws IOException;

        /** A rank's events are all given. */
        default void rankDone() throws IOException {
        }
    }

    /**
     * Writes the merged trace, Kineto JSON or, for {@code pftrace}, Perfetto's protobuf; returns how many slices went
     * to an overflow lane of their track.
     */
    private static int write(OutputStream out, boolean pftrace, Map<Integer, Rank> ranks,
            Map<Integer, ClockAlignment.Shift> shifts, Path output) throws IOException {
        // the merged base: the second the earliest rank starts in, once shifted (as Kineto's base of one rank);
        // each rank's written times are from its own base, which moves onto the merged clock with the rank's shift
        long first = ranks.values().stream().mapToLong(r -> r.startNanos() + shifts.get(r.rank()).nanos()).min()
                .orElse(0);
        long base = Math.floorDiv(first, 1_000_000_000L) * 1_000_000_000L;
        Map<Integer, Long> bases = new HashMap<>();
        for (Rank r : ranks.values()) {
            bases.put(r.rank(), baseOf(r.written()) + shifts.get(r.rank()).nanos());
        }
        int reference = ranks.keySet().iterator().next();
        Map<String, String> attributes = new java.util.LinkedHashMap<>();
        attributes.put("vantage.merge.reference_rank", Integer.toString(reference));
        for (ClockAlignment.Shift s : shifts.values()) {
            String key = "vantage.merge.rank" + s.rank() + ".";
            attributes.put(key + "source", ranks.get(s.rank()).source().getFileName().toString());
            attributes.put(key + "shift_us", new BigDecimal(s.nanos()).movePointLeft(3).toPlainString());
            attributes.put(key + "matched_collectives", s.matched() + " of " + s.kernels());
        }
        if (pftrace) {
            return copyRanks(new MergedPftrace(out, base, attributes), ranks, bases, base);
        }
        int moved;
        try (JsonGenerator g = JSON.getFactory().createGenerator(out)) {
            g.writeStartObject();
            g.writeNumberField("schemaVersion", 1);
            g.writeStringField("displayTimeUnit", "ms");
            g.writeNumberField("baseTimeNanoseconds", base);
            g.writeStringField("traceName", output.toString());
            g.writeObjectFieldStart("otherData");
            for (Map.Entry<String, String> a : attributes.entrySet()) {
                g.writeStringField(a.getKey(), a.getValue());
            }
            g.writeEndObject();
            g.writeArrayFieldStart("traceEvents");
            moved = copyRanks(g::writeTree, ranks, bases, base);
            g.writeEndArray();
            g.writeEndObject();
        }
        return moved;
    }

    /** Copies every rank's events into the sink, each moved from its own base onto the merged one; returns them. */
    private static int copyRanks(Sink sink, Map<Integer, Rank> ranks, Map<Integer, Long> bases, long base)
            throws IOException {
        int moved = 0;
        for (Rank r : ranks.values()) {
            moved += copyEvents(sink, r, new BigDecimal(bases.get(r.rank()) - base).movePointLeft(3));
        }
        return moved;
    }

    /** The {@code baseTimeNanoseconds} of a trace the engine wrote: a top-level field before its events. */
    private static long baseOf(Path written) throws IOException {
        try (InputStream in = Files.newInputStream(written); JsonParser p = JSON.getFactory().createParser(in)) {
            p.nextToken();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                p.nextToken();
                if (field.equals("baseTimeNanoseconds")) {
                    return p.getValueAsLong();
                }
                p.skipChildren();
            }
        }
        return 0;
    }

    /** Copies a rank's events; returns how many slices went to an overflow lane. */
    private static int copyEvents(Sink sink, Rank r, BigDecimal offsetUs) throws IOException {
        Map<String, Long> pids = new HashMap<>();
        Lanes lanes = Lanes.of(r.written());
        String tag = "[rank " + r.rank() + "]";
        eachEvent(r.written(), (position, e) -> {
            rewrite(e, r.rank(), tag, offsetUs, pids);
            ObjectNode named = lanes.place(position, e);
            sink.event(e);
            if (named != null) {
                sink.event(named);
            }
        });
        sink.rankDone();
        return lanes.moved();
    }

    /** What is done with each event of a written trace: its position in {@code traceEvents}, and the event. */
    private interface EventVisitor {
        void visit(int position, ObjectNode event) throws IOException;
    }

    /** Reads the events of a trace the engine wrote, one at a time, in the file's order. */
    private static void eachEvent(Path written, EventVisitor visitor) throws IOException {
        try (InputStream in = Files.newInputStream(written); JsonParser p = JSON.getFactory().createParser(in)) {
            p.setCodec(JSON);
            p.nextToken();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if (!field.equals("traceEvents") || value != JsonToken.START_ARRAY) {
                    p.skipChildren();
                    continue;
                }
                int position = 0;
                while (p.nextToken() == JsonToken.START_OBJECT) {
                    visitor.visit(position++, p.readValueAsTree());
                }
            }
        }
    }

    /**
     * Keeps the slices of each track nested, as Perfetto's JSON importer needs them: a slice that begins inside
     * another of its track and ends after it (a copy that overlaps a kernel on one stream by a few microseconds, as
     * PyTorch records happen to have) goes to the first of the track's overflow lanes where it nests, a thread of the
     * same process numbered {@code tid + k * LANE_STRIDE} and named after the track. The lanes are found in a pass
     * over a rank's written events before they are copied (each track's slices by start, the longer first), so the
     * order the events come in does not matter; the pass keeps two numbers per slice.
     */
    static final class Lanes {
        /** An overflow lane's thread id is the track's plus this times the lane's number. */
        static final long LANE_STRIDE = 1_000_000_000L;
        /** Per event (its position in the written file), its overflow lane, for the events that need one. */
        private final Map<Integer, Integer> laneOf;
        /** The overflow lanes that have their thread_name already, as {@code pid/tid#lane}. */
        private final java.util.Set<String> named = new java.util.HashSet<>();

        private Lanes(Map<Integer, Integer> laneOf) {
            this.laneOf = laneOf;
        }

        /** The lanes of the complete events of a trace the engine wrote. */
        static Lanes of(Path written) throws IOException {
            // per track: {start ns, end ns, position}
            Map<String, List<long[]>> tracks = new HashMap<>();
            eachEvent(written, (position, e) -> {
                if ("X".equals(e.path("ph").asText()) && e.path("ts").isNumber() && e.has("pid") && e.has("tid")) {
                    long start = e.get("ts").decimalValue().movePointRight(3).longValue();
                    long dur = e.path("dur").isNumber() ? e.get("dur").decimalValue().movePointRight(3).longValue()
                            : 0;
                    tracks.computeIfAbsent(e.get("pid").asText() + "/" + e.get("tid").asText(),
                            k -> new ArrayList<>()).add(new long[] {start, start + Math.max(0, dur), position});
                }
            });
            Map<Integer, Integer> laneOf = new HashMap<>();
            for (List<long[]> slices : tracks.values()) {
                slices.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0])
                        : a[1] != b[1] ? Long.compare(b[1], a[1]) : Long.compare(a[2], b[2]));
                List<List<Long>> lanes = new ArrayList<>();
                for (long[] x : slices) {
                    for (int lane = 0; ; lane++) {
                        if (lane == lanes.size()) {
                            lanes.add(new ArrayList<>());
                        }
                        List<Long> ends = lanes.get(lane);
                        while (!ends.isEmpty() && ends.get(ends.size() - 1) <= x[0]) {
                            ends.remove(ends.size() - 1);
                        }
                        if (ends.isEmpty() || x[1] <= ends.get(ends.size() - 1)) {
                            ends.add(x[1]);
                            if (lane > 0) {
                                laneOf.put((int) x[2], lane);
                            }
                            break;
                        }
                    }
                }
            }
            return new Lanes(laneOf);
        }

        /**
         * Moves the event at a position of the written file to its overflow lane, if it has one (the event's pid is
         * the merged one already); returns the {@code thread_name} event of a lane used for the first time, else null.
         */
        ObjectNode place(int position, ObjectNode e) {
            Integer lane = laneOf.get(position);
            if (lane == null) {
                return null;
            }
            JsonNode tid = e.get("tid");
            String track = e.get("pid").asText() + "/" + tid.asText();
            if (tid.canConvertToLong()) {
                e.put("tid", tid.asLong() + lane * LANE_STRIDE);
            } else {
                e.put("tid", tid.asText() + " (overlapping " + lane + ")");
            }
            if (!named.add(track + "#" + lane)) {
                return null;
            }
            ObjectNode name = e.objectNode();
            name.put("name", "thread_name");
            name.put("ph", "M");
            name.set("pid", e.get("pid"));
            name.set("tid", e.get("tid"));
            name.putObject("args").put("name", tid.asText() + " (overlapping slices, lane " + lane + ")");
            return name;
        }

        /** How many slices go to an overflow lane. */
        int moved() {
            return laneOf.size();
        }
    }

    /** One event of a rank, moved onto the merged clock and into the rank's own processes. */
    static void rewrite(ObjectNode e, int rank, String tag, BigDecimal offsetUs, Map<String, Long> pids) {
        JsonNode ts = e.get("ts");
        if (ts != null && ts.isNumber()) {
            e.put("ts", ts.decimalValue().add(offsetUs));
        }
        JsonNode pid = e.get("pid");
        if (pid != null && pid.isNumber()) {
            Long mapped = pids.get(pid.asText());
            if (mapped == null) {
                mapped = (rank + 1) * PID_STRIDE + pids.size();
                pids.put(pid.asText(), mapped);
            }
            e.put("pid", mapped);
        } else if (pid != null && pid.isTextual()) {
            e.put("pid", pid.asText() + " " + tag);
        }
        JsonNode id = e.get("id");
        String ph = e.path("ph").asText();
        if (id != null && (ph.equals("s") || ph.equals("f") || ph.equals("t"))) {
            if (id.canConvertToLong()) {
                e.put("id", ((long) rank << FLOW_RANK_SHIFT) | id.asLong());
            } else {
                e.put("id", id.asText() + " " + tag);
            }
        }
        if (ph.equals("M") && e.get("args") instanceof ObjectNode args) {
            switch (e.path("name").asText()) {
                case "process_name" -> args.put("name", args.path("name").asText() + " " + tag);
                case "process_labels" -> args.put("labels", "rank " + rank
                        + (args.path("labels").asText().isEmpty() ? "" : "," + args.path("labels").asText()));
                case "process_sort_index" -> args.put("sort_index", (rank + 1) * PID_STRIDE * PID_STRIDE
                        + Math.floorMod(args.path("sort_index").asLong(), PID_STRIDE * PID_STRIDE));
                default -> {
                }
            }
        }
    }
}
