package dev.vantage.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import picocli.CommandLine.Option;

/**
 * What an on-demand capture records and where its traces go: the flags of {@code vantage profile <pid> start} and of
 * the Gogo shell's {@code profiler:start}. A window is a duration or a number of iterations, or neither (until
 * stopped).
 */
public final class CaptureOptions {

    @Option(names = "--duration", paramLabel = "TIME", converter = Converters.Duration.class,
            description = "end after TIME: 500ms, 2s, 1.5s, 1m")
    private Long durationMillis;

    @Option(names = "--iterations", paramLabel = "N", converter = Converters.Positive.class,
            description = "end after N iterations (steps the workload marks)")
    private Integer iterations;

    @Option(names = "--activities", paramLabel = "A", arity = "1..*", split = ",",
            description = "what to record, e.g. CPU NPU SPYRE MPS MEM (default: CPU and every installed device's)")
    private List<String> activities = new ArrayList<>();

    @Option(names = "--export", paramLabel = "FORMAT", arity = "1..*", split = ",",
            description = "trace formats to write, e.g. chrome tensorboard csv (default chrome)")
    private List<String> exports = new ArrayList<>();

    @Option(names = "--dir", paramLabel = "DIR", converter = Converters.AbsolutePath.class,
            description = "where the traces go; a relative DIR is taken from the working directory (default: the"
                    + " platform's $VANTAGE_PROFILER_DIR, else its ./vantage_profiles)")
    private Path dir;

    @Option(names = "--name", paramLabel = "NAME", converter = Converters.FileName.class,
            description = "the traces' file name (default ondemand-<pid>-<date>-<time>)")
    private String name;

    /**
     * Checks that the window is one kind and that the directory is not a file, before anything is asked of the
     * platform (which checks the directory again, as the user it runs as).
     *
     * @throws UsageException if both a duration and iterations are given, or the directory is an existing file
     */
    void check() throws UsageException {
        if (durationMillis != null && iterations != null) {
            throw new UsageException("--duration and --iterations exclude each other: give one, or neither to"
                    + " capture until stopped");
        }
        if (dir != null && java.nio.file.Files.exists(dir) && !java.nio.file.Files.isDirectory(dir)) {
            throw new UsageException("--dir " + dir + ": not a directory");
        }
    }

    /** Returns the window's length in milliseconds, or 0 for none. */
    public long durationMillis() {
        return durationMillis == null ? 0 : durationMillis;
    }

    /** Returns the steps to record, or 0 for none. */
    public int iterations() {
        return iterations == null ? 0 : iterations;
    }

    /** Returns the activity names asked for, blank ones dropped; empty for the platform's default. */
    public List<String> activities() {
        return activities.stream().map(String::strip).filter(s -> !s.isEmpty()).toList();
    }

    /** Returns the export formats asked for, blank ones dropped; empty for the platform's default. */
    public List<String> exports() {
        return exports.stream().map(String::strip).filter(s -> !s.isEmpty()).toList();
    }

    /** Returns the directory, absolute, or null for the platform's default. */
    public Path dir() {
        return dir;
    }

    /** Returns the traces' base name, or null for the default. */
    public String name() {
        return name;
    }
}
