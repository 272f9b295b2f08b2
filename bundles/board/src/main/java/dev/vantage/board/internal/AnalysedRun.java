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
import dev.vantage.trace.engine.device.DeviceAnalyses;
import dev.vantage.trace.engine.device.DeviceTables;
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

    /** The analyses of a run's first answer, with HTA's defaults. */
    private static final List<String> FIRST = List.of("temporal", "kernels", "launch", "idle", "queue", "bandwidth",
            "gpu");
    /** The analyses computed after it: each step's critical path, and the advice whose host-bound rule reads them. */
    private static final List<String> LATER = List.of("critical-path", "advice");

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
            DeviceAnalyses analyses = new DeviceAnalyses(rank, trace, DeviceAnalyses.Settings.HTA);
            List<Table> tables = new ArrayList<>();
            // kernel_types says what the view shows; the kernel list of every rank is analyze's
            analyses.run(FIRST, summary, null, (table, rows) -> {
                if (!table.equals("kernels")) {
                    tables.add(new Table(table, DeviceTables.columns(table), rows));
                }
            });
            List<List<Object>> stacks = OperatorStacks.rows(rank, trace);
            if (!stacks.isEmpty()) {
                tables.add(new Table("operators_by_stack", OperatorStacks.COLUMNS, stacks));
            }
            AnalysedRun run = new AnalysedRun(found, summary, tables, jobs);
            run.later = CompletableFuture.runAsync(() -> {
                try {
                    List<Table> all = new ArrayList<>(run.analyses);
                    analyses.run(LATER, summary, null,
                            (table, rows) -> all.add(new Table(table, DeviceTables.columns(table), rows)));
                    run.analyses = List.copyOf(all);
                } catch (IOException | RuntimeException | StackOverflowError e) {
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
