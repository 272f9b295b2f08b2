/**
 * Reads Perfetto's native trace files ({@code .pftrace}, plain or gzip-compressed) into tracks, slices, counters,
 * flows and trace attributes, with {@link dev.vantage.perfetto.format.PerfettoTraceReader}. Built on the classes
 * protoc generates from this module's subset of Perfetto's schema ({@code dev.vantage.perfetto.format.proto}), which
 * writers use too.
 */
@Export
@Version("0.1.0")
package dev.vantage.perfetto.format;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
