package dev.vantage.profiler.api;

import java.util.Objects;

/**
 * An installed exporter, as {@link Profiler#exporters()} lists it.
 *
 * @param format the format name, such as {@code chrome}
 * @param bundle the symbolic name of the bundle that registered it
 * @param version that bundle's version
 */
public record ExporterInfo(String format, String bundle, String version) {

    /** Checks the fields. */
    public ExporterInfo {
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(bundle, "bundle");
        Objects.requireNonNull(version, "version");
    }
}
