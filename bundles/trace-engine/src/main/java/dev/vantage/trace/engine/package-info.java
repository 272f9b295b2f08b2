/**
 * The one trace engine: what a trace's raw material ({@link dev.vantage.trace.engine.TraceData}) means once analysed
 * ({@link dev.vantage.trace.engine.AnalysedTrace}: the trace model, key averages and the table, the event list, the
 * views), and the one table of device and communication names ({@link dev.vantage.trace.engine.DeviceNames}). The
 * profiler core hands a recorded window to it; the readers fill it from files.
 */
@Export
@Version("1.0.0")
package dev.vantage.trace.engine;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
