/**
 * What a trace's devices did, as HolisticTraceAnalysis (HTA) analyses it: the temporal breakdown
 * ({@link dev.vantage.trace.engine.device.Temporal}) and the kernel breakdown
 * ({@link dev.vantage.trace.engine.device.KernelBreakdown}), computed from the engine's device rows of any trace it reads
 * (Kineto JSON in every variant, {@code .pftrace}, a recorded window). Names of results and columns are HTA's, so that a
 * notebook written against HTA's DataFrames reads ours; where the figures deliberately differ, {@code docs/analysis.md}
 * says so and why.
 */
@Export
@Version("1.0.0")
package dev.vantage.trace.engine.device;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
