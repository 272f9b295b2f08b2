/**
 * The tests every trace exporter must pass, as a library an exporter's author runs in their own build: subclass
 * {@link dev.vantage.exporter.contract.TraceExporterContract}, supply the exporter and read its output back with a
 * parser that is not the exporter's own. {@link dev.vantage.exporter.contract.FakeTrace} and
 * {@link dev.vantage.exporter.contract.GeneratedTrace} are traces to feed an exporter in further tests.
 */
@Export
@Version("1.0.0")
package dev.vantage.exporter.contract;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
