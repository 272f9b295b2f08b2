package dev.vantage.board.api;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.osgi.annotation.versioning.ProviderType;

import dev.vantage.trace.engine.AnalysedTrace;
import dev.vantage.trace.engine.summary.TraceSummary;

/**
 * A run as the board read it: one trace file (a Vantage run's trace, a PyTorch trace, a {@code .pftrace}) and what
 * the trace engine made of it. The summary and tables are computed once per version of the file and shared by every
 * view.
 */
@ProviderType
public interface BoardRun {

    /** The run's id in the board's URLs. */
    String id();

    /** What the runs list calls it: the run id of a Vantage run, else the file's path under the log directory. */
    String name();

    /** The trace file, absolute, inside the log directory. */
    Path file();

    /** What the run registry or the file's place says of it: workload, device, rank, trigger, ...; may be empty. */
    Map<String, String> tags();

    /** The trace engine's summary: steps, operators, kernels, memory curves, collectives. */
    TraceSummary summary();

    /**
     * The trace engine's device analyses of the run, as {@code vantage analyze} prints them (HTA's names and
     * columns): temporal, kernel_types, launch_summary, idle, queue_length_summary, memory_bw_summary,
     * critical_path_summary, gpu, advice.
     */
    List<Table> analyses();

    /**
     * Whether some of {@link #analyses()} are still being computed: the board answers a run's first view before
     * each step's critical path ({@code critical_path_summary}) and the advice that needs them are done. A view shows
     * what is there and, having asked this, says what is still to come; the page asks again for the answer of a view
     * that asked while it was true, until it is false. False by default.
     */
    default boolean analysing() {
        return false;
    }

    /** Why an analysis that was being computed is missing from {@link #analyses()}, or null. */
    default String analysisProblem() {
        return null;
    }

    /** One table of {@link #analyses()} by name, or null. */
    default Table analysis(String name) {
        return analyses().stream().filter(t -> t.name().equals(name)).findFirst().orElse(null);
    }

    /**
     * The summaries of every rank of the run's job, by rank: the runs of the log directory that share its registry
     * {@code job_id}, or, for a trace that says it is one rank of several, the traces beside it in its folder that say
     * the same world size. Only this run's when it is no job's. Each rank is read once per version of its file.
     *
     * @throws IOException if a rank's trace cannot be read; the message names it
     */
    List<TraceSummary> job() throws IOException;

    /**
     * Reads the trace of every rank of the run's job ({@link #job()}'s ranks, in the same order) one at a time and
     * applies a function to each, for a view that lays the ranks side by side. Each trace is closed when the
     * function returns. The default reads this run's trace only, as for a run that is no job's.
     *
     * @throws IOException if a rank's trace cannot be read; the message names it
     */
    default <T> List<T> readJob(Function<AnalysedTrace, T> function) throws IOException {
        return List.of(read(function));
    }

    /**
     * Reads the trace again and applies a function to it, for a view that needs more than the summary and analyses.
     * The trace is closed when the function returns, so the result must not hold it.
     *
     * @throws IOException if the file cannot be read any more
     */
    <T> T read(Function<AnalysedTrace, T> function) throws IOException;

    /**
     * A named table: the device analyses' tables, and a view section's.
     *
     * @param name the table's name
     * @param columns the columns' names
     * @param rows the rows, each as long as {@code columns}: strings, numbers, booleans or nulls
     */
    record Table(String name, List<String> columns, List<List<Object>> rows) {

        /** Copies the lists. */
        public Table {
            columns = List.copyOf(columns);
            rows = List.copyOf(rows);
        }
    }
}
