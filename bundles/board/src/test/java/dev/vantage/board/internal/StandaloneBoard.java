package dev.vantage.board.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.vantage.board.internal.views.OverviewView;

/**
 * The board's listing and Overview without the platform or HTTP, for the benchmarks: what {@code /api/runs} and
 * {@code /api/runs/<id>/views/overview} compute and serialize, on the board's own classes.
 */
public final class StandaloneBoard {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Runs runs;

    /**
     * A board of a log directory, holding at most {@code keep} read runs, which computes each step's critical path
     * after a run's first answer on a thread of its own, as the board does.
     */
    public StandaloneBoard(Path logdir, int keep) {
        this.runs = new Runs(new Logdir(logdir), keep, System::currentTimeMillis, r -> {
            Thread t = new Thread(r, "vantage-board-analyses");
            t.setDaemon(true);
            t.start();
        });
    }

    /** The runs list's JSON, walking the directory again (as a request a second after the last does). */
    public byte[] listing() throws IOException {
        return JSON.writeValueAsBytes(new Runs(runs.logdir(), 1, System::currentTimeMillis).listing());
    }

    /** The ids of the runs, in list order. */
    public List<String> ids() throws IOException {
        return runs.list().stream().map(Logdir.Found::id).toList();
    }

    /** The id of the run of a name (its path under the log directory), or null. */
    public String id(String name) throws IOException {
        return runs.list().stream().filter(f -> f.name().equals(name)).map(Logdir.Found::id).findFirst()
                .orElse(null);
    }

    /** The Overview's JSON of a run, reading it first when it is not held. */
    public byte[] overview(String id) throws IOException {
        AnalysedRun run = runs.analysed(runs.find(id));
        return JSON.writeValueAsBytes(new OverviewView().render(run));
    }

    /** Waits until every analysis of a held run is computed (its critical paths, the advice), and returns its JSON. */
    public byte[] complete(String id) throws IOException {
        AnalysedRun run = runs.analysed(runs.find(id));
        run.awaitAnalyses();
        return JSON.writeValueAsBytes(run.analyses());
    }

        /** How many read runs are held. */
    public int held() {
        return runs.held();
    }
}
