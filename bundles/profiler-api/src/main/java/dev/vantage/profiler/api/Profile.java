package dev.vantage.profiler.api;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import org.osgi.annotation.versioning.ProviderType;

import dev.vantage.profiler.trace.Trace;

/**
 * One recording: started by {@link ProfileBuilder#start()}, stopped by {@link #stop()} or {@link #close()}, then
 * read ({@link #events()}, {@link #keyAverages()}) and exported. Reading methods compute what they return on first
 * call, never in {@code stop()}. {@code step()} and {@code stop()} may be called from any thread.
 */
@ProviderType
public interface Profile extends AutoCloseable {

    /** Returns the current state. */
    ProfileState state();

    /**
     * Marks the end of a training or inference step; the step number starts at 0 and grows by one per call.
     *
     * @throws IllegalStateException if the profile is not recording
     */
    void step();

    /** Returns the number of {@link #step()} calls so far. */
    long stepNumber();

    /**
     * Stops recording; afterwards the state is {@link ProfileState#STOPPED}. Hands the recorded buffers over without
     * processing them. Calling it again does nothing.
     */
    void stop();

    /** Same as {@link #stop()}, for try-with-resources. */
    @Override
    void close();

    /**
     * Returns every recorded event in recording order per thread, threads in order of their first event.
     *
     * @throws IllegalStateException if the profile has not been stopped
     */
    List<ProfilerEvent> events();

    /**
     * Returns statistics grouped by event name.
     *
     * @throws IllegalStateException if the profile has not been stopped
     */
    KeyAverages keyAverages();

    /**
     * Returns the finished trace, as exporters see it.
     *
     * @throws IllegalStateException if the profile has not been stopped
     */
    Trace trace();

    /**
     * Writes the trace in Chrome trace format ({@code .json}, or gzip-compressed when the name ends in {@code .gz}).
     *
     * @param path the file to write; not null
     * @throws IllegalStateException if the profile has not been stopped
     * @throws IllegalArgumentException if no {@code chrome} exporter is installed
     * @throws IOException if writing fails
     */
    void exportChromeTrace(Path path) throws IOException;

    /**
     * Writes the trace with the exporter of a format.
     *
     * @param format an installed exporter format such as {@code chrome}
     * @param target the file or directory to write, as the exporter documents
     * @throws IllegalStateException if the profile has not been stopped
     * @throws IllegalArgumentException if no installed exporter has that format
     * @throws IOException if writing fails
     */
    void export(String format, Path target) throws IOException;
}
