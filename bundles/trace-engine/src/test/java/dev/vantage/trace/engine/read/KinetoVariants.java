package dev.vantage.trace.engine.read;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;

import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * One small training step pair, written the way each torch generation wrote it, so that tests can require every
 * variant to give the same numbers. The events, keys and categories follow real traces (Kineto's tb_plugin samples
 * of 2021, HTA's test traces of 2022-2024, a ROCm 6.2 trace, Debian's torch 1.13 without Kineto); the workload is
 * made up: two steps on a main thread (a linear with a GEMM and a copy, a relu, an all-reduce, a CUDA graph replay)
 * and a backward thread (a Tensor Core GEMM), a device user annotation, two memory events and one event of a
 * category no reader knows. Times are whole microseconds; hand-worked figures are in {@code KinetoVariantsTest}.
 */
public final class KinetoVariants {

    /** How the trace is written. */
    public enum Variant {
        /** 2024 on: relative fractional times, base time, External id linkage, cpu_op/cuda_runtime. */
        MODERN,
        /** 2022: absolute integer microseconds, runtime and device External id = correlation. */
        CORRELATION_2022,
        /** torch 1.8/1.9 (2021): Operator/Runtime/Kernel categories, lower-case external id, string tids. */
        TB_2021,
        /** ROCm: the modern layout with HIP runtime names. */
        ROCM,
        /** torch without Kineto: a bare array on "CPU functions", device work on "CUDA functions" with flows. */
        LEGACY
    }

    /** The base time of the modern variants, in nanoseconds (a whole number of microseconds). */
    public static final long BASE_NANOS = 1_712_000_000_000_000_000L;

    private final Variant v;
    private final List<Map<String, Object>> events = new ArrayList<>();
    private final long pid = 4242;
    private int flow = 1;

    private KinetoVariants(Variant v) {
        this.v = v;
    }

    /** Writes rank {@code rank}'s trace in a variant; gzip when the name ends in {@code .gz}. */
    public static Path write(Path file, Variant variant, int rank) throws IOException {
        KinetoVariants g = new KinetoVariants(variant);
        g.workload(rank);
        Object root;
        if (variant == Variant.LEGACY) {
            root = g.events;
        } else {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("schemaVersion", 1);
            r.put("deviceProperties", List.of(Map.of("id", 0, "name", "NVIDIA A100", "numSms", 108)));
            if (variant != Variant.TB_2021) {
                r.put("distributedInfo", Map.of("backend", "nccl", "rank", rank, "world_size", 2));
            }
            if (variant == Variant.MODERN || variant == Variant.ROCM) {
                r.put("displayTimeUnit", "ms");
                r.put("baseTimeNanoseconds", BASE_NANOS);
            }
            r.put("traceEvents", g.events);
            r.put("traceName", file.getFileName().toString());
            root = r;
        }
        try (OutputStream out = file.toString().endsWith(".gz") ? new GZIPOutputStream(Files.newOutputStream(file))
                : Files.newOutputStream(file)) {
            new ObjectMapper().writeValue(out, root);
        }
        return file;
    }

    private void workload(int rank) {
        long s = rank * 7; // ranks differ a little
        meta();
        step(1, 1000, 1000);
        op("aten::linear", 100, 1010, 90, 11, List.of(List.of(8, 16), List.of(32, 16)), List.of("float", "float"));
        op("aten::addmm", 100, 1020, 70, 12, List.of(List.of(32), List.of(8, 16)), List.of("float", "float"));
        memory(1025, 4096, 4096);
        launch("cudaLaunchKernel", "hipLaunchKernel", 100, 1030, 10, 12, 501);
        kernel("kernel", "volta_sgemm_128x64_nn", 0, 7, 1045, 155 + s, 12, 501, false);
        launch("cudaMemcpyAsync", "hipMemcpyWithStream", 100, 1050, 10, 12, 502);
        kernel("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 0, 7, 1061, 9, 12, 502, false);
        memory(1095, -4096, 0);
        op("aten::relu", 100, 1110, 40, 13, List.of(List.of(8, 32)), List.of("float"));
        launch("cudaLaunchKernel", "hipLaunchKernel", 100, 1115, 5, 13, 503);
        kernel("kernel", "void at::native::vectorized_elementwise_kernel<4, relu>", 0, 7, 1205, 25, 13, 503,
                false);
        if (v != Variant.LEGACY && v != Variant.TB_2021) {
            Map<String, Object> a = new LinkedHashMap<>();
            a.put("External id", 11);
            events.add(x("gpu_user_annotation", "## forward ##", 0, 7, 1040, 200, a));
        }
        if (v != Variant.LEGACY) {
            events.add(x("mystery_cat", "something new", pid, tid(100), 1500, 10, new LinkedHashMap<>()));
        }
        step(2, 2000, 1000);
        op("nccl:all_reduce", 100, 2010, 90, 14, List.of(List.of(1024)), List.of("float"));
        launch("cudaLaunchKernel", "hipLaunchKernel", 100, 2020, 10, 14, 504);
        kernel("kernel", "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", 0, 20,
                2040, 260 - s, 14, 504, true);
        op("autograd::engine::evaluate_function: AddmmBackward0", 101, 2100, 300, 15, List.of(), List.of());
        op("AddmmBackward0", 101, 2110, 280, 16, List.of(), List.of());
        op("aten::mm", 101, 2120, 260, 17, List.of(List.of(8, 32), List.of(32, 16)), List.of("float", "float"));
        launch("cudaLaunchKernel", "hipLaunchKernel", 101, 2130, 10, 17, 505);
        kernel("kernel", "sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x32", 0, 7, 2310, 190, 17, 505,
                false);
        op("CUDAGraph.replay", 100, 2400, 50, 18, List.of(), List.of());
        launch("cudaGraphLaunch", "hipGraphLaunch", 100, 2410, 10, 18, 506);
        kernel("kernel", "void graph_kernel_a<float>", 0, 7, 2600, 10, 18, 506, false);
        kernel("kernel", "void graph_kernel_b<float>", 0, 7, 2610, 10, 18, 506, false);
        if (v == Variant.LEGACY) {
            return;
        }
        Map<String, Object> end = new LinkedHashMap<>();
        end.put("name", "Record Window End");
        end.put("ph", "i");
        end.put("s", "g");
        end.put("pid", "");
        end.put("tid", "");
        end.put("ts", time(3500));
        events.add(end);
    }

    private void meta() {
        if (v == Variant.LEGACY) {
            return;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", "thread_name");
        m.put("ph", "M");
        m.put("ts", time(900));
        m.put("pid", pid);
        m.put("tid", v == Variant.TB_2021 ? "100" : 100);
        m.put("args", Map.of("name", "thread 100 (python)"));
        events.add(m);
    }

    private String cat(String modern) {
        if (v != Variant.TB_2021) {
            return modern;
        }
        return switch (modern) {
            case "cpu_op", "user_annotation" -> "Operator";
            case "cuda_runtime" -> "Runtime";
            case "kernel" -> "Kernel";
            case "gpu_memcpy" -> "Memcpy";
            default -> modern;
        };
    }

    private Object time(long micros) {
        return switch (v) {
            case MODERN, ROCM -> micros + 0.0; // relative to the base time, written with decimals
            case LEGACY -> micros;
            default -> BASE_NANOS / 1000 + micros; // absolute integer microseconds
        };
    }

    private Map<String, Object> x(String cat, String name, Object p, Object tid, long ts, long dur,
            Map<String, Object> args) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("ph", "X");
        if (cat != null) {
            e.put("cat", cat);
        }
        e.put("name", name);
        e.put("pid", p);
        e.put("tid", tid);
        e.put("ts", time(ts));
        e.put("dur", dur);
        e.put("args", args);
        return e;
    }

    private Object tid(long tid) {
        return v == Variant.TB_2021 ? Long.toString(tid) : v == Variant.LEGACY ? tid - 99 : tid;
    }

    private void step(int n, long ts, long dur) {
        Map<String, Object> a = new LinkedHashMap<>();
        if (v != Variant.LEGACY) {
            a.put("External id", n);
        }
        events.add(x(v == Variant.LEGACY ? null : cat("user_annotation"), "ProfilerStep#" + n,
                v == Variant.LEGACY ? "CPU functions" : pid, tid(100), ts, dur, a));
    }

    private void op(String name, long tid, long ts, long dur, long external, List<?> dims, List<?> types) {
        Map<String, Object> a = new LinkedHashMap<>();
        if (v != Variant.LEGACY) {
            a.put("External id", external);
            if (v == Variant.CORRELATION_2022 || v == Variant.TB_2021) {
                a.put("Trace name", "PyTorch Profiler");
                a.put("Trace iteration", 0);
            }
            a.put("Input Dims", dims);
            a.put("Input type", types);
        }
        events.add(x(v == Variant.LEGACY ? null : cat("cpu_op"), name, v == Variant.LEGACY ? "CPU functions" : pid,
                tid(tid), ts, dur, a));
        if (v == Variant.LEGACY) {
            lastOp.put(external, new long[] {tid, ts});
        }
    }

    private final Map<Long, long[]> lastOp = new LinkedHashMap<>();

    private void launch(String cuda, String hip, long tid, long ts, long dur, long external, long correlation) {
        if (v == Variant.LEGACY) {
            return; // the legacy exporter writes no runtime calls
        }
        Map<String, Object> a = new LinkedHashMap<>();
        linkage(a, external, correlation);
        a.put("cbid", 211);
        events.add(x(cat("cuda_runtime"), v == Variant.ROCM ? hip : cuda, pid, tid(tid), ts, dur, a));
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("ph", "s");
        s.put("id", correlation);
        s.put("pid", pid);
        s.put("tid", tid(tid));
        s.put("ts", time(ts));
        s.put("cat", v == Variant.CORRELATION_2022 ? "async_cpu_to_gpu" : v == Variant.TB_2021 ? "async" : "ac2g");
        s.put("name", "ac2g");
        events.add(s);
    }

    private void linkage(Map<String, Object> a, long external, long correlation) {
        switch (v) {
            case CORRELATION_2022 -> a.put("External id", correlation);
            case TB_2021 -> a.put("external id", external);
            default -> a.put("External id", external);
        }
        a.put("correlation", correlation);
    }

    private void kernel(String cat, String name, int device, int stream, long ts, long dur, long external,
            long correlation, boolean collective) {
        if (v == Variant.LEGACY) {
            long[] op = lastOp.get(external);
            int id = flow++;
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("name", "op");
            s.put("ph", "s");
            s.put("ts", op[1]);
            s.put("tid", op[0] - 99);
            s.put("pid", "CPU functions");
            s.put("id", id);
            s.put("cat", "cpu_to_cuda");
            s.put("args", Map.of());
            events.add(s);
            Map<String, Object> f = new LinkedHashMap<>(s);
            f.put("name", name);
            f.put("ph", "f");
            f.put("ts", ts);
            f.put("tid", device);
            f.put("pid", "CUDA functions");
            events.add(f);
            events.add(x(null, name, "CUDA functions", device, ts, dur, new LinkedHashMap<>()));
            return;
        }
        Map<String, Object> a = new LinkedHashMap<>();
        linkage(a, external, correlation);
        a.put("device", device);
        a.put("stream", stream);
        if (cat.equals("kernel")) {
            a.put("registers per thread", 64);
            a.put("shared memory", 4096);
            a.put("blocks per SM", 1.5);
            a.put("warps per SM", 6.0);
            a.put("grid", List.of(162, 1, 1));
            a.put("block", List.of(128, 1, 1));
            a.put("est. achieved occupancy %", 25);
        } else {
            a.put("bytes", 2048);
        }
        if (collective && (v == Variant.MODERN || v == Variant.ROCM)) {
            a.put("Collective name", "allreduce");
            a.put("In msg nelems", 1024);
            a.put("dtype", "Float");
        }
        events.add(x(cat(cat), name, device, v == Variant.TB_2021 ? "stream " + stream : stream, ts, dur, a));
    }

    private void memory(long ts, long bytes, long total) {
        Map<String, Object> a = new LinkedHashMap<>();
        a.put("Device Type", 1);
        a.put("Device Id", 0);
        a.put("Addr", 140000000000L);
        a.put("Bytes", bytes);
        a.put("Total Allocated", total);
        a.put("Total Reserved", 2L << 20);
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("ph", "i");
        if (v == Variant.MODERN || v == Variant.ROCM) {
            e.put("cat", "cpu_instant_event");
        }
        e.put("s", "t");
        e.put("name", "[memory]");
        e.put("pid", v == Variant.LEGACY ? "CPU functions" : pid);
        e.put("tid", tid(100));
        e.put("ts", time(ts));
        e.put("args", a);
        if (v != Variant.LEGACY) {
            events.add(e);
        }
    }
}
