package dev.vantage.exporter.parquet.fleet;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import dev.vantage.exporter.chrome.internal.ChromeTraceExporter;
import dev.vantage.exporter.parquet.internal.ParquetTraceExporter;
import dev.vantage.profiler.spi.TraceExporter;

/**
 * Writes a made-up run of many ranks ({@link FleetTrace}) with the real exporters, each rank as
 * {@code vantage launch --profile-export} names it: {@code <dir>/<name>-rank<R>_parquet/} with {@code parquet},
 * {@code <dir>/<name>-rank<R>.trace.json.gz} with {@code chrome}. A run written as Chrome traces has the runtime
 * launch of every kernel (HTA keeps only the kernels whose launch it finds); its Parquet, written by the same call,
 * has them too, so both formats hold the same events.
 */
public final class Fleet {

    private Fleet() {
    }

    /**
     * Writes every rank of a run as Parquet, without launches.
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
        return write(dir, jobId, ranks, steps, eventsPerRank, straggler, List.of("parquet"));
    }

    /**
     * Writes every rank of a run in each of the given formats; with {@code chrome} among them the ranks have
     * launches.
     *
     * @param formats {@code parquet}, {@code chrome} or both
     * @return the number of events of all ranks (once, whatever the number of formats)
     * @throws IllegalArgumentException if a format is neither {@code parquet} nor {@code chrome}, or none is given
     */
    public static long write(Path dir, String jobId, int ranks, int steps, long eventsPerRank, int straggler,
            List<String> formats) throws IOException {
        List<TraceExporter> exporters = new ArrayList<>();
        for (String format : formats) {
            exporters.add(switch (format) {
                case "parquet" -> new ParquetTraceExporter();
                case "chrome" -> new ChromeTraceExporter();
                default -> throw new IllegalArgumentException("format " + format + " is neither parquet nor chrome");
            });
        }
        if (exporters.isEmpty()) {
            throw new IllegalArgumentException("no format");
        }
        boolean launches = formats.contains("chrome");
        int ops = FleetTrace.opsPerStepFor(eventsPerRank, steps, launches);
        long events = 0;
        for (int r = 0; r < ranks; r++) {
            FleetTrace trace = new FleetTrace(jobId, r, ranks, steps, ops, straggler, launches);
            for (TraceExporter exporter : exporters) {
                exporter.export(trace, exporter.defaultTarget(dir, jobId + "-rank" + r));
            }
            events += trace.eventCount();
        }
        return events;
    }

    /**
     * Writes a run: {@code Fleet DIR RANKS EVENTS_PER_RANK [STEPS] [JOB_ID] [FORMATS]}, FORMATS {@code parquet}
     * (the default), {@code chrome} or {@code parquet,chrome}; prints the event count.
     */
    public static void main(String[] args) throws IOException {
        if (args.length < 3) {
            System.err.println("usage: Fleet DIR RANKS EVENTS_PER_RANK [STEPS] [JOB_ID] [FORMATS]");
            System.exit(2);
        }
        int ranks = Integer.parseInt(args[1]);
        long perRank = Long.parseLong(args[2]);
        int steps = args.length > 3 ? Integer.parseInt(args[3]) : 10;
        String jobId = args.length > 4 ? args[4] : "fleet";
        List<String> formats = List.of((args.length > 5 ? args[5] : "parquet").split(","));
        long t0 = System.nanoTime();
        long events = write(Path.of(args[0]), jobId, ranks, steps, perRank, ranks / 3, formats);
        System.out.printf("%d ranks, %d events written as %s in %.1f s%n", ranks, events, String.join(" and ", formats),
                (System.nanoTime() - t0) / 1e9);
    }
}
