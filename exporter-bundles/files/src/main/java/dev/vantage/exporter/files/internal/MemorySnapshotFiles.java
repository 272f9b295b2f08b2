package dev.vantage.exporter.files.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import dev.vantage.profiler.api.MemorySnapshot;
import dev.vantage.profiler.spi.TraceFiles;
import net.razorvine.pickle.Pickler;

/**
 * Writes a {@link MemorySnapshot} in the structure of PyTorch's {@code torch.cuda.memory._snapshot()}: a Python
 * pickle that {@code torch/cuda/_memory_viz.py} and the memory_viz page (MemoryViz.js) read, or JSON with the same
 * keys and values when the file name ends in {@code .json}.
 *
 * <p>Design: the snapshot is first turned into one tree of {@link Map}, {@link List}, {@code Object[]} (a Python
 * tuple), {@link String}, {@link Long}, {@link Integer} and {@link Boolean}; both formats are written from that tree,
 * so they cannot drift apart. The pickle is written by Pyrolite's {@link Pickler} (protocol 2) without its memo:
 * memo indices above 255 would need LONG_BINPUT, which MemoryViz.js marks untested, and with only those types
 * Pyrolite emits nothing but PROTO, EMPTY_DICT, EMPTY_LIST, MARK, SETITEMS, APPENDS, BININT1, BININT2, BININT,
 * LONG1 (at most 8 bytes for a {@code long}), BINUNICODE, NEWFALSE, TUPLE2 and STOP.
 * Files are written through {@link TraceFiles#writeFile}: under a hidden temporary name beside the target, then
 * renamed over it in one atomic step; on any failure the temporary file is removed and the target name is left as
 * it was. Stateless and safe to call from any thread.
 */
final class MemorySnapshotFiles {

    private static final JsonFactory JSON = JsonFactory.builder().build();

    private MemorySnapshotFiles() {
    }

    /**
     * Writes {@code snapshot} to {@code file}, replacing what is there: JSON when the file name ends in
     * {@code .json} (ignoring case), else a pickle.
     *
     * @param snapshot the snapshot; not null
     * @param file the target; not null; missing parent folders are created
     * @throws IOException if the parent folder cannot be created, or writing or renaming fails; nothing is then
     *     left under the target name but what was there before
     * @throws IllegalArgumentException if {@code file} has no file name
     */
    static void write(MemorySnapshot snapshot, Path file) throws IOException {
        Objects.requireNonNull(snapshot, "snapshot");
        Objects.requireNonNull(file, "file");
        Path name = file.getFileName();
        if (name == null) {
            throw new IllegalArgumentException("not a file name: " + file);
        }
        boolean json = name.toString().toLowerCase(Locale.ROOT).endsWith(".json");
        Map<String, Object> tree = tree(snapshot);
        TraceFiles.writeFile(file, out -> {
            if (json) {
                try (JsonGenerator g = JSON.createGenerator(out, JsonEncoding.UTF8)) {
                    g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
                    writeValue(g, tree);
                }
            } else {
                // the memo off: past 255 entries it writes LONG_BINPUT, outside what MemoryViz.js is known to read
                new Pickler(false).dump(tree, out);
            }
        });
    }

    /** The snapshot as the dict {@code _snapshot()} returns, with its keys in the order PyTorch documents them. */
    static Map<String, Object> tree(MemorySnapshot snapshot) {
        List<Object> segments = new ArrayList<>(snapshot.segments().size());
        for (MemorySnapshot.Segment s : snapshot.segments()) {
            Map<String, Object> seg = new LinkedHashMap<>();
            seg.put("device", s.device());
            seg.put("address", s.address());
            seg.put("total_size", s.totalSize());
            seg.put("allocated_size", s.allocatedSize());
            seg.put("active_size", s.activeSize());
            seg.put("requested_size", s.requestedSize());
            seg.put("stream", s.stream());
            seg.put("segment_type", s.segmentType());
            seg.put("segment_pool_id", new Object[] {0, 0});
            seg.put("is_expandable", Boolean.FALSE);
            seg.put("frames", List.of());
            List<Object> blocks = new ArrayList<>(s.blocks().size());
            for (MemorySnapshot.Block b : s.blocks()) {
                Map<String, Object> block = new LinkedHashMap<>();
                block.put("address", b.address());
                block.put("size", b.size());
                block.put("requested_size", b.requestedSize());
                block.put("state", b.state());
                block.put("frames", frames(b.frames()));
                blocks.add(block);
            }
            seg.put("blocks", blocks);
            segments.add(seg);
        }
        List<Object> deviceTraces = new ArrayList<>(snapshot.deviceTraces().size());
        for (List<MemorySnapshot.TraceEntry> trace : snapshot.deviceTraces()) {
            List<Object> entries = new ArrayList<>(trace.size());
            for (MemorySnapshot.TraceEntry e : trace) {
                Map<String, Object> entry = new LinkedHashMap<>();
                entry.put("action", e.action());
                // PyTorch's writer stores the free device bytes of an OOM where other entries keep the address
                if ("oom".equals(e.action())) {
                    entry.put("device_free", e.deviceFree());
                } else {
                    entry.put("addr", e.address());
                }
                entry.put("size", e.size());
                entry.put("stream", e.stream());
                entry.put("time_us", e.timeUs());
                entry.put("frames", frames(e.frames()));
                entries.add(entry);
            }
            deviceTraces.add(entries);
        }
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("segments", segments);
        root.put("device_traces", deviceTraces);
        root.put("allocator_settings", new LinkedHashMap<String, Object>());
        return root;
    }

    private static List<Object> frames(List<MemorySnapshot.Frame> frames) {
        List<Object> out = new ArrayList<>(frames.size());
        for (MemorySnapshot.Frame f : frames) {
            Map<String, Object> frame = new LinkedHashMap<>();
            frame.put("filename", f.filename());
            frame.put("line", f.line());
            frame.put("name", f.name());
            out.add(frame);
        }
        return out;
    }

    private static void writeValue(JsonGenerator g, Object value) throws IOException {
        if (value instanceof Map<?, ?> map) {
            g.writeStartObject();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                g.writeFieldName((String) e.getKey());
                writeValue(g, e.getValue());
            }
            g.writeEndObject();
        } else if (value instanceof List<?> list) {
            g.writeStartArray();
            for (Object item : list) {
                writeValue(g, item);
            }
            g.writeEndArray();
        } else if (value instanceof Object[] tuple) {
            g.writeStartArray();
            for (Object item : tuple) {
                writeValue(g, item);
            }
            g.writeEndArray();
        } else if (value instanceof String s) {
            g.writeString(s);
        } else if (value instanceof Long l) {
            g.writeNumber(l);
        } else if (value instanceof Integer i) {
            g.writeNumber(i);
        } else if (value instanceof Boolean b) {
            g.writeBoolean(b);
        } else {
            throw new IllegalStateException("no JSON form for " + value.getClass());
        }
    }
}
