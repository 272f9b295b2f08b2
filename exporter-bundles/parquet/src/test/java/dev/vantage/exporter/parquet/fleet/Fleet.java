package dev.vantage.exporter.parquet.fleet;

import java.io.IOException;
import java.nio.file.Path;

import dev.vantage.exporter.parquet.internal.ParquetTraceExporter;

/**
 * Writes the Parquet folders of a made-up run of many ranks ({@link FleetTrace}) with the real exporter:
 * {@code <dir>/<name>-rank<R>_parquet/}, as {@code vantage launch --profile-export parquet} names them.
 */
public final class Fleet {

    private Fleet() {
    }

    /**
     * Writes every rank of a run.
     *
     * @param dir the folder to write into
     * @param jobId the job id every row carries (each rank's run id is {@code <jobId>-rank<R>})
     * @param ranks how many ranks
     * @param steps steps per rank
     * @param eventsPerRank about how many events each rank has
     * @param straggler the slow rank, or -1
     * @return the number of events written over all ranks
     */
    public static long write(Path dir, String jobId, int ranks, int steps, long eventsPerRank, int straggler)
            throws IOException {
        ParquetTraceExporter exporter = new ParquetTraceExporter();
        int ops = FleetTrace.opsPerStepFor(eventsPerRank, steps);
        long events = 0;
        for (int r = 0; r < ranks; r++) {
            FleetTrace trace = new FleetTrace(jobId, r, ranks, steps, ops, straggler);
            exporter.export(trace, exporter.defaultTarget(dir, jobId + "-rank" + r));
            events += trace.eventCount();
        }
        return events;
    }

    /** Writes a run: {@code Fleet DIR RANKS EVENTS_PER_RANK [STEPS] [JOB_ID]}; prints the event count. */
    public static void main(String[] args) throws IOException {
        if (args.length < 3) {
            System.err.println("usage: Fleet DIR RANKS EVENTS_PER_RANK [STEPS] [JOB_ID]");
            System.exit(2);
        }
        int ranks = Integer.parseInt(args[1]);
        long perRank = Long.parseLong(args[2]);
        int steps = args.length > 3 ? Integer.parseInt(args[3]) : 10;
        String jobId = args.length > 4 ? args[4] : "fleet";
        long t0 = System.nanoTime();
        long events = write(Path.of(args[0]), jobId, ranks, steps, perRank, ranks / 3);
        System.out.printf("%d ranks, %d events written in %.1f s%n", ranks, events, (System.nanoTime() - t0) / 1e9);
    }
}
