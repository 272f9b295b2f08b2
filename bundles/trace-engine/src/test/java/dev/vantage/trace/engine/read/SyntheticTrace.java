package dev.vantage.trace.engine.read;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.zip.GZIPOutputStream;

import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A small Kineto-style trace whose numbers are worked out by hand in {@link TraceReaderTest}: two steps on one
 * thread, nested operators, a runtime call, a kernel, copy, fill and communication kernel, memory on two devices.
 * Times are microseconds as Kineto writes them.
 */
public final class SyntheticTrace {

    private SyntheticTrace() {
    }

    /** Writes the trace; {@code shuffle} puts the events in random order, {@code gzip} compresses. */
    public static Path write(Path file, String opName, boolean shuffle, boolean gzip) throws IOException {
        List<Map<String, Object>> events = new ArrayList<>();
        events.add(event("M", null, "process_name", 1, 0, 0, null, Map.of("name", "java")));
        events.add(event("X", "user_annotation", "ProfilerStep#1", 1, 7, 100.0, 100.0, Map.of("External id", 1)));
        events.add(event("X", "cpu_op", "outer", 1, 7, 110.0, 50.0,
                Map.of("External id", 10, "Input Dims", List.of(List.of(2, 3), List.of()))));
        events.add(event("X", "cpu_op", opName, 1, 7, 115.0, 20.0,
                Map.of("External id", 11, "Input Dims", List.of(List.of(4)))));
        events.add(event("X", "privateuse1_runtime", "launch", 1, 7, 120.0, 5.0,
                Map.of("External id", 11, "correlation", 1)));
        events.add(event("X", "cpu_op", opName, 1, 7, 140.0, 10.0,
                Map.of("External id", 12, "Input Dims", List.of(List.of(5)))));
        events.add(event("X", "cpu_op", "tail", 1, 7, 170.0, 10.0, Map.of("External id", 13)));
        events.add(event("X", "user_annotation", "ProfilerStep#2", 1, 7, 200.0, 50.0, Map.of("External id", 2)));
        events.add(event("X", "cpu_op", "tail", 1, 7, 210.0, 30.0, Map.of("External id", 14)));
        events.add(event("X", "kernel", "gemm", 0, 1, 126.0, 30.0, Map.of("External id", 11, "device", 0)));
        events.add(event("X", "gpu_memcpy", "Memcpy HtoD", 0, 1, 150.0, 10.0, Map.of("External id", 12)));
        events.add(event("X", "gpu_memset", "Memset", 0, 1, 175.0, 5.0, Map.of("External id", 13)));
        events.add(event("X", "kernel", "ncclAllReduce", 0, 2, 215.0, 20.0, Map.of("External id", 14)));
        events.add(event("X", "kernel", "gemm", 0, 1, 300.0, 4.0, Map.of("External id", 99)));
        events.add(memory(111.0, 20, 0, 100, 1000));
        events.add(memory(112.0, 0, -1, 50, 50));
        events.add(memory(116.0, 20, 0, 300, 1000));
        events.add(memory(150.0, 20, 0, 200, 2000));
        events.add(event("s", "ac2g", "ac2g", 1, 7, 120.0, null, Map.of()));
        if (shuffle) {
            Collections.shuffle(events, new Random(42));
        }
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("schemaVersion", 1);
        root.put("deviceProperties", List.of(Map.of("id", 0, "type", "npu", "name", "NPU")));
        root.put("distributedInfo", Map.of("backend", "hccl", "rank", 3, "world_size", 4));
        root.put("traceEvents", events);
        root.put("baseTimeNanoseconds", 1_000_000_000_000L);
        try (OutputStream out = gzip ? new GZIPOutputStream(Files.newOutputStream(file))
                : Files.newOutputStream(file)) {
            new ObjectMapper().writeValue(out, root);
        }
        return file;
    }

    private static Map<String, Object> event(String ph, String cat, String name, int pid, int tid, double ts,
            Double dur, Map<String, Object> args) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("ph", ph);
        if (cat != null) {
            e.put("cat", cat);
        }
        e.put("name", name);
        e.put("pid", pid);
        e.put("tid", tid);
        e.put("ts", ts);
        if (dur != null) {
            e.put("dur", dur);
        }
        e.put("args", args);
        return e;
    }

    private static Map<String, Object> memory(double ts, int type, int id, long allocated, long reserved) {
        Map<String, Object> args = new LinkedHashMap<>();
        args.put("Device Type", type);
        args.put("Device Id", id);
        args.put("Bytes", 1);
        args.put("Total Allocated", allocated);
        args.put("Total Reserved", reserved);
        Map<String, Object> e = event("i", "cpu_instant_event", "[memory]", 1, 7, ts, null, args);
        e.put("s", "t");
        return e;
    }
}
