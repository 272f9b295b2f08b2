package dev.vantage.board.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

import dev.vantage.trace.engine.read.DamagedTraceException;
import dev.vantage.trace.engine.summary.TraceSummary;

/**
 * The board's runs: the log directory's listing, walked again when a request comes more than a second after the
 * last walk (so a run written into the directory appears on the next refresh of the page), and the runs read so far.
 * A run is read when a view of it is first asked for, once per version of its file (path, size and modification
 * time): a trace still being written is read again when it changes. At most {@code keep} read runs are held, the
 * least recently used dropped first, so the heap stays bounded however many runs arrive; a failed read is remembered
 * as its message until the file changes.
 */
final class Runs {

    /** How many runs' summaries are held, for the Distributed view of a job's ranks. */
    static final int KEEP_SUMMARIES = 256;

    /** How old a listing may be before a request walks the directory again. */
    static final long RESCAN_MILLIS = 1_000;

    /** A version of a run's file. */
    private record Key(String id, long bytes, long modifiedMillis) {
        static Key of(Logdir.Found f) {
            return new Key(f.id(), f.bytes(), f.modifiedMillis());
        }
    }

    private final Logdir logdir;
    private final int keep;
    private final LongSupplier clock;
    private List<Logdir.Found> listing = List.of();
    private long listedAt = Long.MIN_VALUE;
    private final Map<Key, AnalysedRun> read;
    private final Map<Key, String> failed = new ConcurrentHashMap<>();
    // the summaries of more runs than are held whole, for the ranks of a job (a summary is a run's small part)
    private final Map<Key, TraceSummary> summaries = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, TraceSummary> eldest) {
            return size() > KEEP_SUMMARIES;
        }
    };
    private final Map<Key, CompletableFuture<AnalysedRun>> reading = new ConcurrentHashMap<>();

    private final Executor later;

    /** Runs whose analyses are all computed before a run's first answer (tests, benchmarks of complete runs). */
    Runs(Logdir logdir, int keep, LongSupplier clock) {
        this(logdir, keep, clock, Runnable::run);
    }

    /**
     * Runs of a log directory.
     *
     * @param later where each step's critical path and the advice are computed once a run's first answer is given
     */
    Runs(Logdir logdir, int keep, LongSupplier clock, Executor later) {
        this.logdir = logdir;
        this.keep = keep;
        this.clock = clock;
        this.later = later;
        this.read = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Key, AnalysedRun> eldest) {
                return size() > Runs.this.keep;
            }
        };
    }

    /** The log directory. */
    Logdir logdir() {
        return logdir;
    }

    /** The runs, walking the directory again if the last walk is more than {@link #RESCAN_MILLIS} old. */
    synchronized List<Logdir.Found> list() throws IOException {
        long now = clock.getAsLong();
        if (listedAt == Long.MIN_VALUE || now - listedAt >= RESCAN_MILLIS) {
            listing = List.copyOf(logdir.scan());
            listedAt = now;
            // what no longer exists in any version is forgotten
            failed.keySet().removeIf(k -> listing.stream().noneMatch(f -> Key.of(f).equals(k)));
        }
        return listing;
    }

    /** The run of an id, or null. */
    Logdir.Found find(String id) throws IOException {
        for (Logdir.Found f : list()) {
            if (f.id().equals(id)) {
                return f;
            }
        }
        return null;
    }

    /** What the list says of a run: {@code read}, {@code not read} or {@code error}, and the error's message. */
    String[] status(Logdir.Found f) {
        if (f.problem() != null) {
            return new String[] {"error", f.problem()};
        }
        Key key = Key.of(f);
        String message = failed.get(key);
        if (message != null) {
            return new String[] {"error", message};
        }
        synchronized (read) {
            return read.containsKey(key) ? new String[] {"read", null} : new String[] {"not read", null};
        }
    }

    /**
     * The run read, reading it if needed; concurrent requests for one run wait for one read.
     *
     * @throws IOException with the reason, when the run has a problem or its trace cannot be read
     */
    AnalysedRun analysed(Logdir.Found f) throws IOException {
        if (f.problem() != null) {
            throw new IOException(f.problem());
        }
        Key key = Key.of(f);
        synchronized (read) {
            AnalysedRun done = read.get(key);
            if (done != null) {
                return done;
            }
        }
        String message = failed.get(key);
        if (message != null) {
            throw new IOException(message);
        }
        CompletableFuture<AnalysedRun> mine = new CompletableFuture<>();
        CompletableFuture<AnalysedRun> running = reading.putIfAbsent(key, mine);
        if (running == null) {
            try {
                AnalysedRun run = AnalysedRun.read(f, this::job, later);
                synchronized (read) {
                    read.put(key, run);
                }
                synchronized (summaries) {
                    summaries.put(key, run.summary());
                }
                mine.complete(run);
            } catch (IOException | RuntimeException | LinkageError | StackOverflowError e) {
                // one run's failure is that run's error row; the board and the other runs go on
                String why = e instanceof DamagedTraceException || e instanceof IOException ? e.getMessage()
                        : "the trace could not be analysed: " + e;
                failed.put(key, why == null ? e.toString() : why);
                mine.completeExceptionally(new IOException(failed.get(key), e));
            } finally {
                reading.remove(key);
            }
            running = mine;
        }
        try {
            return running.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while the run was read", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new UncheckedIOException(new IOException(e.getCause()));
        }
    }

    /**
     * The summaries of a run's job, by rank: the runs with its registry {@code job_id}, or, when its trace says it is
     * one of several ranks, the other loose traces of its folder that say the same world size.
     */
    List<AnalysedRun.Rank> job(Logdir.Found run, TraceSummary summary) throws IOException {
        String jobId = run.tags().get("job_id");
        List<Logdir.Found> candidates = new ArrayList<>();
        for (Logdir.Found f : list()) {
            if (f.problem() != null || f.file() == null) {
                continue;
            }
            boolean same = jobId != null ? jobId.equals(f.tags().get("job_id"))
                    : summary.worldSize() > 1 && !f.tags().containsKey("job_id")
                            && f.file().getParent().equals(run.file().getParent());
            if (same) {
                candidates.add(f);
            }
        }
        List<AnalysedRun.Rank> ranks = new ArrayList<>();
        for (Logdir.Found f : candidates) {
            TraceSummary s = f.id().equals(run.id()) ? summary : summaryOf(f);
            if (jobId != null || s.worldSize() == summary.worldSize()) {
                ranks.add(new AnalysedRun.Rank(f, s));
            }
        }
        if (ranks.isEmpty()) {
            ranks.add(new AnalysedRun.Rank(run, summary));
        }
        ranks.sort(Comparator.comparingInt((AnalysedRun.Rank r) -> r.summary().rank())
                .thenComparing(r -> r.summary().source()));
        return ranks;
    }

    /** A run's summary: from the summaries held, else read (and held). */
    private TraceSummary summaryOf(Logdir.Found f) throws IOException {
        Key key = Key.of(f);
        synchronized (summaries) {
            TraceSummary s = summaries.get(key);
            if (s != null) {
                return s;
            }
        }
        return analysed(f).summary();
    }

    /** The runs list as {@code /api/runs} answers it. */
    Map<String, Object> listing() throws IOException {
        List<Object> rows = new ArrayList<>();
        List<Logdir.Found> all = list();
        for (Logdir.Found f : all) {
            String[] status = status(f);
            Map<String, Object> row = Answers.run(f.id(), f.name(), f.tags(), f.bytes(), f.modifiedMillis(), status[0],
                    status[1]);
            rows.add(row);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("logdir", logdir.root().toString());
        out.put("runs", rows);
        out.put("truncated", all.size() >= Logdir.MAX_RUNS);
        return out;
    }

    /** How many read runs are held. */
    int held() {
        synchronized (read) {
            return read.size();
        }
    }
}
