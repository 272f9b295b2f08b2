/**
 * The views of an analysed trace, as the analysis verbs show them: {@link dev.vantage.trace.engine.summary.TraceSummary}
 * and the records it is made of. Immutable values; the engine computes them
 * ({@link dev.vantage.trace.engine.AnalysedTrace#summary}).
 */
@Export
@Version("1.0.0")
package dev.vantage.trace.engine.summary;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
