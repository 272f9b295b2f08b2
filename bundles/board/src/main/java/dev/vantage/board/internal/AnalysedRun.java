package dev.vantage.board.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;

import dev.vantage.board.api.BoardRun;
import dev.vantage.trace.engine.AnalysedTrace;
import dev.vantage.trace.engine.OperatorStacks;
import dev.vantage.trace.engine.device.Advice;
import dev.vantage.trace.engine.device.Bandwidth;
import dev.vantage.trace.engine.device.CriticalPath;
import dev.vantage.trace.engine.device.DeviceWork;
import dev.vantage.trace.engine.device.GpuMetrics;
import dev.vantage.trace.engine.device.IdleTime;
import dev.vantage.trace.engine.device.KernelBreakdown;
import dev.vantage.trace.engine.device.Launches;
import dev.vantage.trace.engine.device.QueueLength;
import dev.vantage.trace.engine.device.Temporal;
import dev.vantage.trace.engine.read.TraceReader;
import dev.vantage.trace.engine.summary.TraceSummary;

/**
 * A run the board has read: the trace engine's summary of its file and the summaries of its device analyses, with
 * HTA's defaults as {@code vantage analyze} uses them. Only these compact results are kept, never the trace's
 * columns, so a read run costs the board its tables, not its events.
 */
final class AnalysedRun implements BoardRun {

    /** Finds the summaries of a run's job. */
    interface Jobs {
        /** The job's ranks, by rank: each one's place in the log directory and its summary. */
        List<Rank> of(Logdir.Found run, TraceSummary summary) throws IOException;
    }

    /** One rank of a job. */
    record Rank(Logdir.Found found, TraceSummary summary) {
    }

    private final Logdir.Found found;
    private final TraceSummary summary;
    private final Jobs jobs;
    private volatile List<Table> analyses;
    /** The analyses computed after the first answer: each step's critical path, and the advice that needs them. */
    private volatile CompletableFuture<Void> later = CompletableFuture.completedFuture(null);
    private volatile String laterProblem;

    private AnalysedRun(Logdir.Found found, TraceSummary summary, List<Table> analyses, Jobs jobs) {
        this.found = found;
        this.summary = summary;
        this.analyses = List.copyOf(analyses);
        this.jobs = jobs;
    }

    /**
     * Reads a run's trace with the engine and analyses it; its job's ranks come from {@code jobs}. The summary and
     * the device analyses a view shows at once are computed here; each step's critical path and the advice (whose
     * host-bound rule needs them) on {@code later}, with the trace kept open until they are done, so that the first
     * answer does not wait for them ({@link #analysing()}).
     */
    static AnalysedRun read(Logdir.Found found, Jobs jobs, Executor later) throws IOException {
        AnalysedTrace trace = TraceReader.read(found.file());
        boolean handedOver = false;
        try {
            TraceSummary summary = trace.summary(found.file().getFileName().toString());
            int rank = Math.max(0, summary.rank());
            DeviceWork work = DeviceWork.of(trace.data(), false);
            List<Table> tables = new ArrayList<>();
            tables.add(new Table("temporal", Temporal.COLUMNS, List.of(Temporal.of(rank, work).row())));
            KernelBreakdown breakdown = KernelBreakdown.builder().add(rank, work).build();
            tables.add(new Table("kernel_types", KernelBreakdown.TYPE_COLUMNS,
                    breakdown.types().stream().map(KernelBreakdown.TypeShare::row).toList()));
            Launches launches = Launches.of(rank, work);
            tables.add(new Table("launch_summary", Launches.SUMMARY_COLUMNS, List.of(launches.summary(
                    Launches.RUNTIME_CUTOFF_US, Launches.LAUNCH_DELAY_CUTOFF_US))));
            tables.add(new Table("idle", IdleTime.COLUMNS,
                    IdleTime.of(rank, work, IdleTime.KERNEL_WAIT_US * 1000).table()));
            tables.add(new Table("queue_length_summary", QueueLength.SUMMARY_COLUMNS,
                    QueueLength.of(rank, work).summary(QueueLength.MAX_QUEUE_LENGTH)));
            tables.add(new Table("memory_bw_summary", Bandwidth.SUMMARY_COLUMNS, Bandwidth.of(rank, work).summary()));
            GpuMetrics gpu = GpuMetrics.of(rank, trace);
            tables.add(new Table("gpu", GpuMetrics.COLUMNS, gpu.table()));
            List<List<Object>> stacks = OperatorStacks.rows(rank, trace);
            if (!stacks.isEmpty()) {
                tables.add(new Table("operators_by_stack", OperatorStacks.COLUMNS, stacks));
            }
            AnalysedRun run = new AnalysedRun(found, summary, tables, jobs);
            run.later = CompletableFuture.runAsync(() -> {
                try {
                    List<CriticalPath> paths = CriticalPath.of(rank, trace.data(), work,
                            CriticalPath.DEFAULT_ANNOTATION, -1);
                    List<Table> all = new ArrayList<>(run.analyses);
                    all.add(new Table("critical_path_summary", CriticalPath.SUMMARY_COLUMNS,
                            paths.stream().map(CriticalPath::summary).toList()));
                    all.add(new Table("advice", Advice.COLUMNS,
                            Advice.of(rank, trace.data(), summary, gpu, launches, paths).table()));
                    run.analyses = List.copyOf(all);
                } catch (RuntimeException | StackOverflowError e) {
                    run.laterProblem = "each step's critical path could not be computed: " + e;
                } finally {
                    trace.close();
                }
            }, later);
            handedOver = true;
            return run;
        } catch (java.util.concurrent.RejectedExecutionException e) {
            throw new IOException("the board is stopping", e);
        } finally {
            if (!handedOver) {
                trace.close();
            }
        }
    }

    @Override
    public boolean analysing() {
        return !later.isDone();
    }

    @Override
    public String analysisProblem() {
        return laterProblem;
    }

    /** Waits until every analysis is computed (for tests and the benchmarks, which compare complete runs). */
    void awaitAnalyses() {
        later.join();
    }

    @Override
    public String id() {
        return found.id();
    }

    @Override
    public String name() {
        return found.name();
    }

    @Override
    public Path file() {
        return found.file();
    }

    @Override
    public Map<String, String> tags() {
        return found.tags();
    }

    @Override
    public TraceSummary summary() {
        return summary;
    }

    @Override
    public List<Table> analyses() {
        return analyses;
    }

    @Override
    public List<TraceSummary> job() throws IOException {
        return jobs.of(found, summary).stream().map(Rank::summary).toList();
    }

    @Override
    public <T> List<T> readJob(Function<AnalysedTrace, T> function) throws IOException {
        List<T> out = new ArrayList<>();
        for (Rank r : jobs.of(found, summary)) {
            try (AnalysedTrace trace = TraceReader.read(r.found().file())) {
                out.add(function.apply(trace));
            } catch (IOException e) {
                throw new IOException(r.found().name() + ": " + e.getMessage(), e);
            }
        }
        return out;
    }

    @Override
    public <T> T read(Function<AnalysedTrace, T> function) throws IOException {
        try (AnalysedTrace trace = TraceReader.read(found.file())) {
            return function.apply(trace);
        }
    }
}
