/**
 * The immutable model of a finished trace, which exporters read. Events are read through a cursor over the
 * recorded columns, so a trace of tens of millions of events is never materialised as objects. {@link
 * dev.vantage.profiler.trace.StepRule} is the one rule for which step an event belongs to, and
 * {@link dev.vantage.profiler.trace.TraceTime} the one way times are written.
 */
@Export
@Version("1.7.0")
package dev.vantage.profiler.trace;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
