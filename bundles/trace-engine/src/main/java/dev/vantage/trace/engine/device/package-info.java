/**
 * What a trace's devices did, as HolisticTraceAnalysis (HTA) analyses it: the temporal breakdown
 * ({@link dev.vantage.trace.engine.device.Temporal}) and the kernel breakdown
 * ({@link dev.vantage.trace.engine.device.KernelBreakdown}), the launches, idle time, queue lengths, bandwidth and kernel
 * sequences, each step's critical path ({@link dev.vantage.trace.engine.device.CriticalPath}), the TensorBoard plugin's
 * GPU figures and advice ({@link dev.vantage.trace.engine.device.Advice}), computed from the engine's device rows of any
 * trace it reads
 * (Kineto JSON in every variant, {@code .pftrace}, a recorded window). Names of results and columns are HTA's, so that a
 * notebook written against HTA's DataFrames reads ours; where the figures deliberately differ, {@code docs/analysis.md}
 * says so and why.
 */
@Export
@Version("1.0.0")
package dev.vantage.trace.engine.device;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
