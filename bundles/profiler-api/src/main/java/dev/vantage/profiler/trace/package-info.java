/**
 * The immutable model of a finished trace, which exporters read. Events are read through a cursor over the
 * recorded columns, so a trace of tens of millions of events is never materialised as objects.
 */
@Export
@Version("1.5.0")
package dev.vantage.profiler.trace;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
