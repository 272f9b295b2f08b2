/**
 * The readers that fill the engine from files: Kineto JSON in every variant torch has written and torch's legacy
 * array, Vantage's own traces, and Perfetto's {@code .pftrace}; {@link dev.vantage.trace.engine.read.TraceReader} is
 * the one entry.
 */
@Export
@Version("1.0.0")
package dev.vantage.trace.engine.read;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
