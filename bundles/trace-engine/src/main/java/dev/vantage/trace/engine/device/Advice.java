package dev.vantage.trace.engine.device;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.TraceDevice;
import dev.vantage.trace.engine.DeviceRows;
import dev.vantage.trace.engine.HostThread;
import dev.vantage.trace.engine.TraceData;
import dev.vantage.trace.engine.store.HostRows;
import dev.vantage.trace.engine.summary.DeviceOverlap;
import dev.vantage.trace.engine.summary.KernelStats;
import dev.vantage.trace.engine.summary.MemoryCurve;
import dev.vantage.trace.engine.summary.StepStats;
import dev.vantage.trace.engine.summary.TraceSummary;

/**
 * Rule-based advice on a rank's trace, each item naming the figures that fired it. The first seven rules are the
 * TensorBoard profiler plugin's ({@code RunProfileData.analyze} at kineto {@code 94979607^}), with its thresholds:
 * DataLoader over 5 % of the step time, DataParallel on more than one device, DistributedDataParallel without NCCL on a
 * device of compute capability 3.5 or more, communication over 10 % of the step time, a device under 50 %
 * utilization, no Tensor Core kernel on a device of compute capability 7 or more while operators that could use them
 * launched kernels, and a device's peak memory over 90 % of its capacity. Three come from the engine's analyses: the
 * host on the critical path of most steps, most kernels shorter than their launch call, and communication that
 * device work does not hide.
 *
 * @param rank the rank
 * @param items what fired, in the rules' order
 */
public record Advice(int rank, List<Item> items) {

    /** The table's columns. */
    public static final List<String> COLUMNS = List.of("rank", "rule", "evidence", "advice");

    /** The plugin's thresholds, and the analyses' rules'. */
    public static final double DATALOADER_SHARE = 0.05;
    public static final double COMMUNICATION_SHARE = 0.10;
    public static final double LOW_UTILIZATION = 0.5;
    public static final double MEMORY_SHARE = 0.9;
    public static final double SHORT_KERNEL_SHARE = 0.5;
    public static final double EXPOSED_COMMUNICATION_SHARE = 0.10;

    /** The operators autocast runs in lower precision, so that Tensor Cores can run their kernels (the plugin's). */
    static final Set<String> TENSOR_CORE_ELIGIBLE = Set.of("aten::_convolution", "aten::conv1d", "aten::conv2d",
            "aten::conv3d", "aten::conv_tbc", "aten::conv_transpose1d", "aten::conv_transpose2d",
            "aten::conv_transpose3d", "aten::convolution", "aten::cudnn_convolution",
            "aten::cudnn_convolution_transpose", "aten::prelu", "aten::addmm", "aten::addmv", "aten::addr",
            "aten::matmul", "aten::mm", "aten::mv", "aten::linear", "aten::addbmm", "aten::baddbmm", "aten::bmm",
            "aten::chain_matmul", "aten::linalg_multi_dot", "aten::_thnn_fused_lstm_cell",
            "aten::_thnn_fused_gru_cell", "aten::lstm_cell", "aten::gru_cell", "aten::rnn_tanh_cell",
            "aten::rnn_relu_cell", "CudnnConvolutionBackward", "BmmBackward0",
            "aten::cudnn_convolution_transpose_backward", "CudnnConvolutionTransposeBackward", "MmBackward",
            "aten::cudnn_convolution_backward_weight", "aten::addmm_", "AddmvBackward", "MvBackward");

    private static final Set<String> NCCL_OPS = Set.of("nccl:broadcast", "nccl:reduce", "nccl:all_reduce",
            "nccl:all_gather", "nccl:reduce_scatter");

    /**
     * One piece of advice.
     *
     * @param rule the rule's name: {@code dataloader}, {@code data-parallel}, {@code nccl}, {@code communication},
     *     {@code utilization}, {@code tensor-cores}, {@code memory}, {@code host-bound}, {@code launch-bound},
     *     {@code exposed-communication}
     * @param evidence the figures that fired it, and the threshold
     * @param advice what to try
     */
    public record Item(String rule, String evidence, String advice) {
    }

    /**
     * The advice on a rank's trace.
     *
     * @param summary the trace's summary (steps, memory, overlap, kernels by operator)
     * @param gpu the plugin's GPU figures
     * @param launches the launch statistics
     * @param paths the critical paths of the steps
     */
    public static Advice of(int rank, TraceData trace, TraceSummary summary, GpuMetrics gpu, Launches launches,
            List<CriticalPath> paths) {
        List<Item> items = new ArrayList<>();
        long stepNanos = summary.steps().stream().mapToLong(StepStats::durationNanos).sum();
        Set<String> opNames = opNames(trace);
        // the plugin's rules
        if (stepNanos > 0) {
            long loading = dataLoading(trace, summary.steps());
            double share = (double) loading / stepNanos;
            if (share > DATALOADER_SHARE) {
                items.add(new Item("dataloader", String.format(Locale.ROOT,
                        "DataLoader %.1f %% of the step time (%s of %s over %d steps; rule: > %.0f %%)", 100 * share,
                        ms(loading), ms(stepNanos), summary.steps().size(), 100 * DATALOADER_SHARE),
                        "Load data in worker processes (DataLoader num_workers > 0) and pin memory, so that the next"
                                + " batch is ready when a step ends."));
            }
        }
        Set<Integer> devicesUsed = devicesWithWork(trace);
        if (opNames.contains("DataParallel.forward") && devicesUsed.size() > 1) {
            items.add(new Item("data-parallel", "DataParallel.forward ran, on " + devicesUsed.size() + " devices",
                    "Use DistributedDataParallel, one process per device, instead of DataParallel's one process"
                            + " for all devices."));
        }
        if (opNames.contains("DistributedDataParallel.forward") && opNames.stream().noneMatch(NCCL_OPS::contains)) {
            for (TraceDevice d : trace.devices()) {
                double capability = capability(d);
                if (capability >= 3.5) {
                    items.add(new Item("nccl", String.format(Locale.ROOT, "DistributedDataParallel without NCCL"
                            + " collectives, on %s of compute capability %.1f", name(d), capability),
                            "Use the NCCL backend for DistributedDataParallel on GPUs: it is the fastest."));
                    break;
                }
            }
        }
        if (stepNanos > 0) {
            long communication = summary.steps().stream().mapToLong(StepStats::communicationNanos).sum();
            double share = (double) communication / stepNanos;
            if (share > COMMUNICATION_SHARE) {
                items.add(new Item("communication", String.format(Locale.ROOT,
                        "communication %.1f %% of the step time (%s of %s; rule: > %.0f %%)", 100 * share,
                        ms(communication), ms(stepNanos), 100 * COMMUNICATION_SHARE),
                        "Send less or less often: gradient compression (DDP communication hooks), gradient"
                                + " accumulation, or a larger batch per step."));
            }
        }
        if (gpu != null) {
            List<String> low = new ArrayList<>();
            for (GpuMetrics.Device d : gpu.devices()) {
                if (d.utilization() < LOW_UTILIZATION) {
                    low.add(String.format(Locale.ROOT, "%s %.1f %%", name(trace, d.device()),
                            100 * d.utilization()));
                }
            }
            if (!low.isEmpty()) {
                items.add(new Item("utilization", "GPU utilization of " + String.join(", ", low)
                        + String.format(Locale.ROOT, " (rule: < %.0f %%)", 100 * LOW_UTILIZATION),
                        "Give the device more work per launch: a larger batch (which can change how the model"
                                + " converges), fewer and larger kernels."));
            }
        }
        tensorCores(trace, summary, items);
        memory(trace, summary, items);
        // the analyses' rules
        if (paths != null && !paths.isEmpty()) {
            long cpuBound = paths.stream().filter(p -> p.bound().equals("cpu")).count();
            long onPath = paths.stream().mapToLong(CriticalPath::lengthUs).sum();
            long host = paths.stream().mapToLong(p -> p.byBound().get(CriticalPath.Bound.CPU_BOUND)
                    + p.byBound().get(CriticalPath.Bound.GPU_KERNEL_LAUNCH_OVERHEAD)).sum();
            if (2 * cpuBound > paths.size() && onPath > 0) {
                items.add(new Item("host-bound", String.format(Locale.ROOT, "the host bounds %d of %d steps' critical"
                        + " path: host ops and late launches are %.1f %% of it (%s of %s)", cpuBound, paths.size(),
                        100.0 * host / onPath, ms(host * 1000), ms(onPath * 1000)),
                        "Shorten the host's work between launches: CUDA graphs, torch.compile, fewer small ops,"
                                + " or moving host work off the step."));
            }
        }
        if (launches != null && !launches.launches().isEmpty()) {
            long shortKernels = (long) launches.summary(Launches.RUNTIME_CUTOFF_US, Launches.LAUNCH_DELAY_CUTOFF_US)
                    .get(2);
            double share = (double) shortKernels / launches.launches().size();
            if (share >= SHORT_KERNEL_SHARE) {
                items.add(new Item("launch-bound", String.format(Locale.ROOT, "%d of %d kernels (%.1f %%) ran shorter"
                        + " than the call that launched them (rule: >= %.0f %%)", shortKernels,
                        launches.launches().size(), 100 * share, 100 * SHORT_KERNEL_SHARE),
                        "Launch fewer, larger kernels: fuse ops (torch.compile), or replay the step as a CUDA graph."));
            }
        }
        DeviceOverlap o = summary.overlap();
        if (o.stepNanos() > 0 && o.communicationNanos() > 0) {
            long exposed = o.communicationNanos() - o.overlappedNanos();
            double share = (double) exposed / o.stepNanos();
            if (share > EXPOSED_COMMUNICATION_SHARE) {
                items.add(new Item("exposed-communication", String.format(Locale.ROOT, "communication that no"
                        + " computation overlaps is %.1f %% of the step time (%s of %s communication; rule: > %.0f"
                        + " %%)", 100 * share, ms(exposed), ms(o.communicationNanos()),
                        100 * EXPOSED_COMMUNICATION_SHARE),
                        "Overlap communication with computation: bucket gradients (DDP bucket_cap_mb), start"
                                + " collectives early, or prefetch (FSDP)."));
            }
        }
        return new Advice(rank, List.copyOf(items));
    }

    /** The rows of {@link #COLUMNS}. */
    public List<List<Object>> table() {
        List<List<Object>> out = new ArrayList<>();
        for (Item i : items) {
            out.add(List.of(rank, i.rule(), i.evidence(), i.advice()));
        }
        return out;
    }

    private static void tensorCores(TraceData trace, TraceSummary summary, List<Item> items) {
        TraceDevice first = trace.devices().stream().filter(d -> !d.type().equals("cpu")).findFirst().orElse(null);
        if (first == null || capability(first) < 7) {
            return;
        }
        long all = 0;
        long eligible = 0;
        boolean anyTensorCore = false;
        for (KernelStats k : summary.kernelsByOp()) {
            if (!k.type().equalsIgnoreCase("kernel")) {
                continue;
            }
            all += k.totalNanos();
            anyTensorCore |= dev.vantage.trace.engine.summary.TensorCores.uses(k.name());
            if (k.op() != null && TENSOR_CORE_ELIGIBLE.contains(k.op())) {
                eligible += k.totalNanos();
            }
        }
        if (!anyTensorCore && all > 0 && eligible > 0) {
            items.add(new Item("tensor-cores", String.format(Locale.ROOT, "no kernel ran on Tensor Cores, while"
                    + " %.0f %% of the kernel time was launched by operators that can use them (%s of compute"
                    + " capability %.1f)", 100.0 * eligible / all, name(first), capability(first)),
                    "Run those operators in lower precision with Automatic Mixed Precision (torch.autocast) so that"
                            + " Tensor Cores run them."));
        }
    }

    private static void memory(TraceData trace, TraceSummary summary, List<Item> items) {
        for (TraceDevice d : trace.devices()) {
            String total = d.properties().get("totalGlobalMem");
            if (total == null || d.type().equals("cpu")) {
                continue;
            }
            long capacity;
            try {
                capacity = Long.parseLong(total.trim());
            } catch (NumberFormatException e) {
                continue;
            }
            for (MemoryCurve c : summary.memory()) {
                if (c.device().equalsIgnoreCase(d.type() + ":" + d.index())
                        && c.peakAllocatedBytes() > MEMORY_SHARE * capacity) {
                    items.add(new Item("memory", String.format(Locale.ROOT, "peak allocated memory %.1f %% of %s's"
                            + " %.1f GiB (rule: > %.0f %%)", 100.0 * c.peakAllocatedBytes() / capacity, name(d),
                            capacity / (1024.0 * 1024 * 1024), 100 * MEMORY_SHARE),
                            "Make room: activation checkpointing (torch.utils.checkpoint) or Automatic Mixed"
                                    + " Precision, before a larger batch."));
                    return;
                }
            }
        }
    }

    /** A device as the evidence names it: {@code cuda 0}, {@code npu 1 (emulated)}. */
    private static String name(TraceDevice d) {
        return d.type() + " " + d.index() + (d.emulated() ? " (emulated)" : "");
    }

    /** The accelerator of an index, named as {@link #name(TraceDevice)} names it; {@code device N} when unknown. */
    private static String name(TraceData trace, int index) {
        for (TraceDevice d : trace.devices()) {
            if (!d.type().equals("cpu") && d.index() == index) {
                return name(d);
            }
        }
        return "device " + index;
    }

    /** A device's compute capability from its properties, or 0 when it has none. */
    private static double capability(TraceDevice d) {
        String major = d.properties().get("computeMajor");
        String minor = d.properties().get("computeMinor");
        if (major == null || minor == null) {
            return 0;
        }
        try {
            return Double.parseDouble(major.trim() + "." + minor.trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static Set<String> opNames(TraceData trace) {
        Set<String> names = new TreeSet<>();
        for (HostThread t : trace.threads()) {
            HostRows rows = t.rows();
            for (int i = 0; i < rows.size(); i++) {
                names.add(trace.name(rows.name(i)));
            }
        }
        return names;
    }

    private static Set<Integer> devicesWithWork(TraceData trace) {
        Set<Integer> out = new TreeSet<>();
        DeviceRows rows = trace.device();
        for (int i = 0; i < rows.size(); i++) {
            if (rows.kind(i).isDeviceWork()) {
                out.add(rows.deviceIndex(i));
            }
        }
        return out;
    }

    /**
     * The plugin's DataLoader time: in the steps, the time inside {@code enumerate(DataLoader)#...__next__} (or
     * {@code enumerate(DataPipe)#...}) host events, on any thread, with no device work and no runtime call running
     * (the roles the plugin counts first).
     */
    static long dataLoading(TraceData trace, List<StepStats> steps) {
        List<long[]> loading = new ArrayList<>();
        for (HostThread t : trace.threads()) {
            HostRows rows = t.rows();
            for (int i = 0; i < rows.size(); i++) {
                int kind = rows.kind(i);
                if (kind != EventKind.CPU_OP.id() && kind != EventKind.USER_ANNOTATION.id()) {
                    continue;
                }
                String n = trace.name(rows.name(i));
                if (n.startsWith("enumerate(DataLoader)#") && n.endsWith(".__next__")
                        || n.startsWith("enumerate(DataPipe)#")) {
                    loading.add(new long[] {rows.start(i), rows.end(i)});
                }
            }
        }
        if (loading.isEmpty()) {
            return 0;
        }
        List<long[]> busy = new ArrayList<>();
        DeviceRows rows = trace.device();
        for (int i = 0; i < rows.size(); i++) {
            if (rows.kind(i).isDeviceWork() || rows.kind(i) == EventKind.RUNTIME) {
                busy.add(new long[] {rows.start(i), rows.end(i)});
            }
        }
        long offset = trace.epochOffsetNanos();
        List<long[]> stepSpans = new ArrayList<>();
        for (StepStats s : steps) {
            long start = s.startEpochNanos() - offset;
            stepSpans.add(new long[] {start, start + s.durationNanos()});
        }
        long[][] l = intersect(merge(loading), merge(stepSpans));
        return length(l) - length(intersect(l, merge(busy)));
    }

    /** Sorted, disjoint intervals covering the given ones. */
    private static long[][] merge(List<long[]> intervals) {
        long[][] sorted = intervals.toArray(new long[0][]);
        Arrays.sort(sorted, (a, b) -> Long.compare(a[0], b[0]));
        List<long[]> out = new ArrayList<>();
        for (long[] x : sorted) {
            if (!out.isEmpty() && x[0] <= out.get(out.size() - 1)[1]) {
                long[] last = out.get(out.size() - 1);
                last[1] = Math.max(last[1], x[1]);
            } else {
                out.add(new long[] {x[0], x[1]});
            }
        }
        return out.toArray(new long[0][]);
    }

    /** The intersection of two sorted, disjoint lists of intervals. */
    private static long[][] intersect(long[][] a, long[][] b) {
        List<long[]> out = new ArrayList<>();
        int i = 0;
        int j = 0;
        while (i < a.length && j < b.length) {
            long from = Math.max(a[i][0], b[j][0]);
            long to = Math.min(a[i][1], b[j][1]);
            if (from < to) {
                out.add(new long[] {from, to});
            }
            if (a[i][1] < b[j][1]) {
                i++;
            } else {
                j++;
            }
        }
        return out.toArray(new long[0][]);
    }

    private static long length(long[][] intervals) {
        long sum = 0;
        for (long[] x : intervals) {
            sum += x[1] - x[0];
        }
        return sum;
    }

    private static String ms(long nanos) {
        return String.format(Locale.ROOT, "%.3f ms", nanos / 1e6);
    }
}
