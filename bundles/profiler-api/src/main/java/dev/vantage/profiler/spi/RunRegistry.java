package dev.vantage.profiler.spi;

import java.io.IOException;
import java.nio.file.Path;

import org.osgi.annotation.versioning.ConsumerType;

import dev.vantage.profiler.api.RunRecord;

/**
 * The run registry: one JSON line per finished profiled run in {@code <profile-dir>/runs.jsonl}, which
 * {@code vantage runs}, {@code compare} and {@code report} read (its fields: the schema {@code run.schema.json} of
 * the analysis library). A whiteboard service that the bundle writing the profiler's files
 * ({@code dev.vantage.exporter.files}) registers, and that a deployment may replace (to keep its runs elsewhere);
 * the shell and the on-demand profiler call it. Implementations are thread-safe.
 */
@ConsumerType
public interface RunRegistry {

    /**
     * Appends a finished run as one line: the record, the platform (framework, distribution, Java, OS, host, pid),
     * every bundle with its version, and for each artifact its path relative to the directory, its size and its
     * SHA-256. The line is written with one write under an exclusive lock of the file, so the lines of runs that end
     * together (the ranks of a launch) never interleave.
     *
     * @param profileDir the profile directory; made when missing
     * @param run the run; not null
     * @return the registry file
     * @throws IOException if the registry cannot be written or an artifact cannot be read
     */
    Path record(Path profileDir, RunRecord run) throws IOException;
}
