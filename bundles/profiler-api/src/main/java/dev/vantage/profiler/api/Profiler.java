package dev.vantage.profiler.api;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.osgi.annotation.versioning.ProviderType;

import dev.vantage.profiler.trace.Trace;

/**
 * The profiler service: starts profiles and exports traces through the installed exporters. Implemented by the
 * profiler core; get it from the service registry (or a DS reference). Thread-safe. Device memory (torch's
 * {@code torch.cuda.memory} functions) is the {@link MemoryAdmin} service's, and the run registry the
 * {@code RunRegistry} service's ({@code dev.vantage.profiler.spi}).
 */
@ProviderType
public interface Profiler {

    /** Returns a builder for a new profile; {@link ProfileBuilder#start()} starts it. */
    default ProfileBuilder profile() {
        return new ProfileBuilder(this::start);
    }

    /**
     * Starts recording.
     *
     * @param options what to record; not null
     * @return the profile, in state {@link ProfileState#RECORDING}
     * @throws IllegalStateException if another profile is recording
     * @throws IllegalArgumentException if an activity other than CPU has no device bundle installed; the message
     *     lists the available activities
     */
    Profile start(ProfileOptions options);

    /** Returns the activities that can be recorded now (CPU always, devices whose bundles are installed). */
    Set<Activity> availableActivities();

    /**
     * Returns the device activities that can be recorded now, each with the device type whose work it records
     * ({@code NPU} records {@code npu} devices), so that a caller can tell an activity that records nothing on
     * the device it runs on.
     */
    Map<Activity, String> deviceActivities();

    /** Returns the formats of the installed exporters, such as {@code chrome}; a snapshot, sorted. */
    Set<String> exporterFormats();

    /** Returns the installed exporters with the bundles that provide them; a snapshot, sorted by format. */
    List<ExporterInfo> exporters();

    /**
     * Writes a trace with the exporter of a format.
     *
     * @param trace a finished trace; not null
     * @param format an installed exporter format; not null
     * @param target the file or directory to write, as the exporter documents; not null
     * @throws IllegalArgumentException if no installed exporter has that format; the message lists the installed
     * @throws IOException if the exporter fails to write; nothing is left under the target's name
     */
    void export(Trace trace, String format, Path target) throws IOException;

    /**
     * Returns where an exporter would write a trace of the given base name inside a directory.
     *
     * @param format an installed exporter format
     * @param directory the output directory
     * @param baseName a file name without extension, such as {@code matmul-rank0}
     * @throws IllegalArgumentException if no installed exporter has that format
     */
    Path defaultTarget(String format, Path directory, String baseName);

    /**
     * Returns where an exporter would write cycle {@code cycle} of a profile that can complete several, such as
     * {@code dir/name-cycle2.trace.json.gz}, or one TensorBoard run directory for every cycle.
     *
     * @throws IllegalArgumentException if no installed exporter has that format
     */
    Path defaultTarget(String format, Path directory, String baseName, int cycle);
}
