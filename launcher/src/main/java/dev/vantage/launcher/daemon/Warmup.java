package dev.vantage.launcher.daemon;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * What a new resident process does before its first call: it analyses a trace of its own, some times, with the output
 * thrown away, so that the reader and the analyses are loaded and compiled when the caller's next call comes (a call
 * in a cold process takes twice as long as one in a JVM of its own; docs/benchmarks.md, "A resident process"). The
 * trace is a training job as PyTorch's profiler records it on a CUDA device, made up here: steps of forward and
 * backward ops, each launching a kernel through the runtime with a flow to it, copies, a synchronisation and an
 * all-reduce per step. It stops as soon as a call comes.
 */
final class Warmup {

    /** How many times the trace is analysed, at most. */
    static final int ROUNDS = 12;

    private static final int STEPS = 6;
    /** The trace's start: 2023-11-14, in microseconds since the epoch. */
    private static final long EPOCH_US = 1_700_000_000_000_000L;
    private static final int OPS_PER_STEP = 300;

    private Warmup() {
    }

    /**
     * Writes the trace to {@code trace} and analyses it up to {@link #ROUNDS} times while {@code stop} says no.
     *
     * @return the rounds run
     */
    static int run(DaemonServer.Runner runner, Path trace, BooleanSupplier stop) throws Exception {
        Path partial = Files.createTempFile(trace.getParent(), "warmup", ".partial");
        try (Writer out = new BufferedWriter(Files.newBufferedWriter(partial, StandardCharsets.UTF_8))) {
            write(out);
        }
        Files.move(partial, trace, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        PrintStream nowhere = new PrintStream(OutputStream.nullOutputStream(), false, StandardCharsets.UTF_8);
        int rounds = 0;
        while (rounds < ROUNDS && !stop.getAsBoolean()) {
            int code = runner.run(List.of("analyze", trace.toString(), "--format", "csv"), Map.of(), nowhere,
                    nowhere);
            if (code != 0) {
                throw new IllegalStateException("analyze of the warm-up trace ended with exit code " + code);
            }
            rounds++;
        }
        return rounds;
    }

    /** Writes the trace as Kineto JSON. */
    static void write(Writer out) throws IOException {
        out.write("{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"made-up device\","
                + " \"totalGlobalMem\": 34079637504, \"computeMajor\": 8, \"computeMinor\": 0,"
                + " \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048, \"regsPerBlock\": 65536,"
                + " \"regsPerMultiprocessor\": 65536, \"warpSize\": 32, \"sharedMemPerBlock\": 49152,"
                + " \"sharedMemPerMultiprocessor\": 98304, \"numSms\": 80, \"sharedMemPerBlockOptin\": 98304}],\n"
                + "\"traceEvents\": [\n");
        double t = 100;
        int correlation = 1;
        int external = 1;
        boolean first = true;
        for (int step = 0; step < STEPS; step++) {
            double stepStart = t;
            double device = t + 30;
            StringBuilder ops = new StringBuilder();
            for (int i = 0; i < OPS_PER_STEP; i++) {
                boolean backward = i >= OPS_PER_STEP / 2;
                String op = backward ? "autograd::engine::evaluate_function: AddmmBackward0" : "aten::linear";
                String inner = backward ? "aten::mm" : "aten::addmm";
                double opStart = t + 2;
                event(ops, "cpu_op", op, 1, 1, opStart, 40, "\"External id\": " + external++);
                event(ops, "cpu_op", inner, 1, 1, opStart + 3, 30, "\"External id\": " + external++);
                boolean copy = i % 25 == 24;
                event(ops, "cuda_runtime", copy ? "cudaMemcpyAsync" : "cudaLaunchKernel", 1, 1, opStart + 8, 12,
                        "\"External id\": " + (external - 1) + ", \"correlation\": " + correlation);
                double kernelStart = Math.max(device, opStart + 25);
                double kernelDur = 15 + (i % 7) * 9;
                if (copy) {
                    event(ops, "gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 0, 7, kernelStart, kernelDur,
                            "\"device\": 0, \"stream\": 7, \"correlation\": " + correlation
                                    + ", \"bytes\": 1048576, \"memory bandwidth (GB/s)\": 12.5");
                } else {
                    event(ops, "kernel", backward ? "sm80_xmma_gemm_f16f16_f16f32_nt" : "ampere_sgemm_64x64_tn", 0, 7,
                            kernelStart, kernelDur, "\"device\": 0, \"stream\": 7, \"correlation\": " + correlation
                                    + ", \"grid\": [" + (8 + i % 5) + ", 4, 1], \"block\": [128, 1, 1],"
                                    + " \"blocks per SM\": " + String.format(Locale.ROOT, "%.3f", 0.4 + (i % 5) * 0.1)
                                    + ", \"est. achieved occupancy %\": " + (25 + i % 40));
                }
                flow(ops, "s", correlation, 1, 1, opStart + 8);
                flow(ops, "f", correlation, 0, 7, kernelStart);
                correlation++;
                device = kernelStart + kernelDur + 1.5;
                t = opStart + 42;
            }
            event(ops, "user_annotation", "nccl:all_reduce", 1, 1, t + 1, 20, "\"External id\": " + external++);
            event(ops, "cuda_runtime", "cudaLaunchKernel", 1, 1, t + 5, 10,
                    "\"External id\": " + (external - 1) + ", \"correlation\": " + correlation);
            double ncclStart = Math.max(device, t + 20);
            event(ops, "kernel", "ncclKernel_AllReduce_RING_LL_Sum_float", 0, 8, ncclStart, 300,
                    "\"device\": 0, \"stream\": 8, \"correlation\": " + correlation
                            + ", \"grid\": [2, 1, 1], \"block\": [256, 1, 1]");
            flow(ops, "s", correlation, 1, 1, t + 5);
            flow(ops, "f", correlation, 0, 8, ncclStart);
            correlation++;
            double sync = ncclStart + 300 - (t + 25);
            event(ops, "cuda_runtime", "cudaStreamSynchronize", 1, 1, t + 25, Math.max(5, sync),
                    "\"correlation\": " + correlation++);
            t = t + 30 + Math.max(5, sync);
            if (!first) {
                out.write(",\n");
            }
            first = false;
            StringBuilder stepEvent = new StringBuilder();
            event(stepEvent, "user_annotation", "ProfilerStep#" + step, 1, 1, stepStart, t - stepStart,
                    "\"External id\": " + external++);
            out.write(stepEvent.substring(0, stepEvent.length() - 2));
            out.write(",\n");
            out.write(ops.substring(0, ops.length() - 2));
            t += 50;
        }
        out.write("\n], \"traceName\": \"warm-up\", \"displayTimeUnit\": \"ms\"}\n");
    }

    private static void event(StringBuilder out, String cat, String name, int pid, int tid, double ts, double dur,
            String args) {
        out.append(String.format(Locale.ROOT, "{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": %d,"
                + " \"tid\": %d, \"ts\": %s, \"dur\": %.3f, \"args\": {%s}},\n", cat, name, pid, tid, time(ts), dur,
                args));
    }

    private static void flow(StringBuilder out, String phase, int id, int pid, int tid, double ts) {
        out.append(String.format(Locale.ROOT, "{\"ph\": \"%s\", \"id\": %d, \"pid\": %d, \"tid\": %d, \"ts\": %s,"
                + " \"cat\": \"ac2g\", \"name\": \"ac2g\"%s},\n", phase, id, pid, tid, time(ts),
                phase.equals("f") ? ", \"bp\": \"e\"" : ""));
    }

    /** A time in microseconds since the trace's start as microseconds since the epoch, to the nanosecond. */
    private static String time(double us) {
        long nanos = Math.round(us * 1000);
        return String.format(Locale.ROOT, "%d.%03d", EPOCH_US + nanos / 1000, nanos % 1000);
    }
}
