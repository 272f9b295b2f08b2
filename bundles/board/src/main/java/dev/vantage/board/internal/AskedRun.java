package dev.vantage.board.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import dev.vantage.board.api.BoardRun;
import dev.vantage.trace.engine.AnalysedTrace;
import dev.vantage.trace.engine.summary.TraceSummary;

/**
 * A run as one view's answer sees it: everything is the run's, and it notes whether the view asked if analyses were
 * still being computed while they were. Only such an answer is pending (the page asks for it again until the run is
 * analysed); a view that never asks, such as the Timeline, which reads the trace again for each answer, is answered
 * once.
 */
final class AskedRun implements BoardRun {

    private final BoardRun run;
    private boolean waited;

    AskedRun(BoardRun run) {
        this.run = run;
    }

    /** Whether the view asked {@link #analysing()} and was told the analyses were still to come. */
    boolean waited() {
        return waited;
    }

    @Override
    public boolean analysing() {
        boolean analysing = run.analysing();
        waited |= analysing;
        return analysing;
    }

    @Override
    public String analysisProblem() {
        return run.analysisProblem();
    }

    @Override
    public Table analysis(String name) {
        return run.analysis(name);
    }

    @Override
    public String id() {
        return run.id();
    }

    @Override
    public String name() {
        return run.name();
    }

    @Override
    public Path file() {
        return run.file();
    }

    @Override
    public Map<String, String> tags() {
        return run.tags();
    }

    @Override
    public TraceSummary summary() {
        return run.summary();
    }

    @Override
    public List<Table> analyses() {
        return run.analyses();
    }

    @Override
    public List<TraceSummary> job() throws IOException {
        return run.job();
    }

    @Override
    public <T> List<T> readJob(Function<AnalysedTrace, T> function) throws IOException {
        return run.readJob(function);
    }

    @Override
    public <T> T read(Function<AnalysedTrace, T> function) throws IOException {
        return run.read(function);
    }
}
