package dev.vantage.benchmarks;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

/**
 * Writes a Kineto trace of about a given size as torch 2.x writes one (the modern layout: relative fractional
 * microseconds, {@code External id} and {@code correlation}, {@code ac2g} flows), streamed, so any size fits. The
 * event mix follows HTA's A100 DDP sample (about 35 % {@code cpu_op}, 22 % {@code cuda_runtime}, 7 % kernels,
 * flows): per unit of work a forward op with a nested aten op carrying shapes, a launch, a kernel with CUPTI's
 * launch facts, a flow pair and, every 8th unit, a copy; every 500 units a {@code ProfilerStep#N}.
 * Run: {@code java -cp benchmarks/target/benchmarks.jar dev.vantage.benchmarks.KinetoTraceFile FILE MB}.
 */
public final class KinetoTraceFile {

    private KinetoTraceFile() {
    }

    public static void main(String[] args) throws IOException {
        Path file = Path.of(args[0]);
        long bytes = write(file, Long.parseLong(args[1]) << 20);
        System.out.println(file + ": " + bytes + " bytes");
    }

    /** Writes the trace; returns its size in bytes. */
    public static long write(Path file, long targetBytes) throws IOException {
        try (OutputStream out = Files.newOutputStream(file);
                JsonGenerator g = new JsonFactory().createGenerator(out, JsonEncoding.UTF8)) {
            g.writeStartObject();
            g.writeNumberField("schemaVersion", 1);
            g.writeArrayFieldStart("deviceProperties");
            g.writeStartObject();
            g.writeNumberField("id", 0);
            g.writeStringField("name", "NVIDIA A100-SXM4-80GB");
            g.writeNumberField("numSms", 108);
            g.writeEndObject();
            g.writeEndArray();
            g.writeObjectFieldStart("distributedInfo");
            g.writeStringField("backend", "nccl");
            g.writeNumberField("rank", 0);
            g.writeNumberField("world_size", 8);
            g.writeEndObject();
            g.writeStringField("displayTimeUnit", "ms");
            g.writeNumberField("baseTimeNanoseconds", 1_712_000_000_000_000_000L);
            g.writeArrayFieldStart("traceEvents");
            List<String> ops = List.of("aten::linear", "aten::conv2d", "aten::layer_norm", "aten::gelu",
                    "aten::softmax", "aten::matmul", "aten::add", "aten::mul");
            List<String> kernels = List.of("ampere_sgemm_128x64_tn",
                    "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl>",
                    "sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x32_stage4_warpsize2x2x1_tensor16x8x16",
                    "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4>");
            long t = 1000;
            long ext = 1;
            long corr = 1;
            long unit = 0;
            long step = 0;
            long stepStart = t;
            while ((unit % 1000 != 0 || size(g, file) < targetBytes)) {
                if (unit % 500 == 0) {
                    if (unit > 0) {
                        x(g, "user_annotation", "ProfilerStep#" + step, 7, stepStart, t - stepStart, ext++, -1);
                    }
                    step++;
                    stepStart = t;
                }
                String op = ops.get((int) (unit % ops.size()));
                long opExt = ext++;
                x(g, "cpu_op", op, 7, t, 60, opExt, -1);
                long inner = ext++;
                g.writeStartObject();
                head(g, "cpu_op", "aten::addmm", 7, t + 5, 40);
                g.writeObjectFieldStart("args");
                g.writeNumberField("External id", inner);
                g.writeNumberField("Record function id", 0);
                g.writeNumberField("Sequence number", unit);
                g.writeNumberField("Fwd thread id", 0);
                g.writeFieldName("Input Dims");
                g.writeRawValue("[[64, 1024], [1024, 4096], [4096]]");
                g.writeFieldName("Input type");
                g.writeRawValue("[\"float\", \"float\", \"float\"]");
                g.writeNumberField("Ev Idx", unit * 4);
                g.writeEndObject();
                g.writeEndObject();
                long c = corr++;
                x(g, "cuda_runtime", "cudaLaunchKernel", 7, t + 10, 8, inner, c);
                flow(g, "s", c, 7, t + 10);
                String kernel = kernels.get((int) (unit % kernels.size()));
                g.writeStartObject();
                head(g, "kernel", kernel, 0, t + 30, 50);
                g.writeNumberField("pid", 0);
                g.writeNumberField("tid", 7);
                g.writeObjectFieldStart("args");
                g.writeNumberField("External id", inner);
                g.writeNumberField("queued", 0);
                g.writeNumberField("device", 0);
                g.writeNumberField("context", 1);
                g.writeNumberField("stream", 7);
                g.writeNumberField("correlation", c);
                g.writeNumberField("registers per thread", 128);
                g.writeNumberField("shared memory", 49152);
                g.writeNumberField("blocks per SM", 1.185185);
                g.writeNumberField("warps per SM", 9.481481);
                g.writeFieldName("grid");
                g.writeRawValue("[128, 1, 1]");
                g.writeFieldName("block");
                g.writeRawValue("[256, 1, 1]");
                g.writeNumberField("est. achieved occupancy %", 19);
                g.writeEndObject();
                g.writeEndObject();
                flow(g, "f", c, 0, t + 30);
                if (unit % 8 == 0) {
                    long m = corr++;
                    x(g, "cuda_runtime", "cudaMemcpyAsync", 7, t + 45, 10, opExt, m);
                    g.writeStartObject();
                    head(g, "gpu_memcpy", "Memcpy DtoD (Device -> Device)", 0, t + 85, 4);
                    g.writeNumberField("pid", 0);
                    g.writeNumberField("tid", 7);
                    g.writeObjectFieldStart("args");
                    g.writeNumberField("External id", opExt);
                    g.writeNumberField("device", 0);
                    g.writeNumberField("stream", 7);
                    g.writeNumberField("correlation", m);
                    g.writeNumberField("bytes", 4_194_304);
                    g.writeEndObject();
                    g.writeEndObject();
                }
                t += 100;
                unit++;
            }
            x(g, "user_annotation", "ProfilerStep#" + step, 7, stepStart, t - stepStart, ext, -1);
            g.writeEndArray();
            g.writeStringField("traceName", file.getFileName().toString());
            g.writeEndObject();
        }
        return Files.size(file);
    }

    private static long size(JsonGenerator g, Path file) throws IOException {
        g.flush();
        return Files.size(file);
    }

    private static void head(JsonGenerator g, String cat, String name, long tid, long ts, long dur)
            throws IOException {
        g.writeStringField("ph", "X");
        g.writeStringField("cat", cat);
        g.writeStringField("name", name);
        if (!cat.equals("kernel") && !cat.equals("gpu_memcpy")) {
            g.writeNumberField("pid", 4242);
            g.writeNumberField("tid", tid);
        }
        g.writeFieldName("ts");
        g.writeRawValue(ts + ".250");
        g.writeFieldName("dur");
        g.writeRawValue(dur + ".500");
    }

    private static void x(JsonGenerator g, String cat, String name, long tid, long ts, long dur, long ext, long corr)
            throws IOException {
        g.writeStartObject();
        head(g, cat, name, tid, ts, dur);
        g.writeObjectFieldStart("args");
        g.writeNumberField("External id", ext);
        if (corr >= 0) {
            g.writeNumberField("cbid", 211);
            g.writeNumberField("correlation", corr);
        } else {
            g.writeNumberField("Record function id", 0);
        }
        g.writeEndObject();
        g.writeEndObject();
    }

    private static void flow(JsonGenerator g, String ph, long id, long tid, long ts) throws IOException {
        g.writeStartObject();
        g.writeStringField("ph", ph);
        g.writeNumberField("id", id);
        g.writeNumberField("pid", ph.equals("s") ? 4242 : 0);
        g.writeNumberField("tid", tid);
        g.writeFieldName("ts");
        g.writeRawValue(ts + ".250");
        g.writeStringField("cat", "ac2g");
        g.writeStringField("name", "ac2g");
        if (ph.equals("f")) {
            g.writeStringField("bp", "e");
        }
        g.writeEndObject();
    }
}
