package dev.vantage.profiler.spi;

import java.io.IOException;
import java.nio.file.Path;

import org.osgi.annotation.versioning.ConsumerType;

import dev.vantage.profiler.trace.Trace;

/**
 * Writes finished traces in one named format. Registered as a service; users pick it by {@link #format()}.
 * Exporters see only the trace model, never the core. An exporter writes under a temporary name and renames at the
 * end, so a failure never leaves a half-written file under the target's name. Must be thread-safe.
 */
@ConsumerType
public interface TraceExporter {

    /** Returns the format name users select it by, such as {@code chrome}; lower case, no spaces. */
    String format();

    /**
     * Returns where a trace of the given base name goes inside a directory, such as
     * {@code dir/baseName.trace.json.gz}.
     */
    Path defaultTarget(Path directory, String baseName);

    /**
     * Returns where cycle {@code cycle} of a profile that can complete several goes. By default the base name
     * gets {@code -cycle<K>}; an exporter whose target collects cycles (a TensorBoard run directory) returns the
     * same target for all.
     *
     * @param cycle the cycle number, from 1
     */
    default Path defaultTarget(Path directory, String baseName, int cycle) {
        return defaultTarget(directory, baseName + "-cycle" + cycle);
    }

    /**
     * Writes a trace.
     *
     * @param trace the trace; not null
     * @param target the file or directory to write, as {@link #defaultTarget} names it or chosen by the user
     * @throws IOException if writing fails; nothing is left under the target's name
     */
    void export(Trace trace, Path target) throws IOException;
}
