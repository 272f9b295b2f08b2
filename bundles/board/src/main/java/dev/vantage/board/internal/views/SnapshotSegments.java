package dev.vantage.board.internal.views;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;

import net.razorvine.pickle.Unpickler;

/**
 * The segments of a memory snapshot a run wrote beside its trace ({@code --memory-snapshot}, or the snapshot of a
 * profile with memory): torch's {@code _snapshot()} structure, read from its pickle (protocol 2, as memory_viz reads
 * it) or its JSON. Per segment: device, address, stream, pool type, total, allocated, active and requested bytes,
 * and how many blocks it holds and how many of them are allocated.
 */
public final class SnapshotSegments {

    /** The run tag that names the snapshot: its path from the trace's folder, a file inside the log directory. */
    public static final String TAG = "memory_snapshot";
    /** The largest snapshot read. */
    static final long MAX_BYTES = 256L << 20;
    /** The table's columns. */
    static final List<String> COLUMNS = List.of("device", "address", "stream", "segment_type", "total_size",
            "allocated_size", "active_size", "requested_size", "blocks", "allocated_blocks");

    private SnapshotSegments() {
    }

    /**
     * The segments' rows, largest first.
     *
     * @throws IOException if the file cannot be read, is too large, or is no snapshot
     */
    static List<List<Object>> read(Path file) throws IOException {
        long size = Files.size(file);
        if (size > MAX_BYTES) {
            throw new IOException("the snapshot is " + (size >> 20) + " MiB, more than the " + (MAX_BYTES >> 20)
                    + " MiB read");
        }
        Object root;
        try (InputStream in = Files.newInputStream(file)) {
            root = file.getFileName().toString().endsWith(".json") ? new ObjectMapper().readValue(in, Object.class)
                    : new Unpickler().load(in);
        } catch (RuntimeException e) {
            throw new IOException("not a snapshot: " + e.getMessage(), e);
        }
        if (!(root instanceof Map<?, ?> map) || !(map.get("segments") instanceof List<?> segments)) {
            throw new IOException("not a snapshot: no segments");
        }
        List<List<Object>> rows = new ArrayList<>();
        for (Object o : segments) {
            if (!(o instanceof Map<?, ?> s)) {
                continue;
            }
            long blocks = 0;
            long allocated = 0;
            if (s.get("blocks") instanceof List<?> list) {
                for (Object b : list) {
                    blocks++;
                    if (b instanceof Map<?, ?> block && "active_allocated".equals(block.get("state"))) {
                        allocated++;
                    }
                }
            }
            rows.add(java.util.Arrays.asList(s.get("device"), s.get("address") instanceof Number a
                    ? "0x" + Long.toHexString(a.longValue()) : null, s.get("stream"), s.get("segment_type"),
                    number(s.get("total_size")), number(s.get("allocated_size")), number(s.get("active_size")),
                    number(s.get("requested_size")), blocks, allocated));
        }
        rows.sort((x, y) -> Long.compare(value(y.get(4)), value(x.get(4))));
        return rows;
    }

    private static Long number(Object o) {
        return o instanceof Number n ? n.longValue() : null;
    }

    private static long value(Object o) {
        return o instanceof Long l ? l : 0;
    }
}
