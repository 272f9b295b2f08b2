/**
 * ONNX Runtime sessions that Vantage profiles as a device of its own ({@code ort}): a bundle that runs its own ONNX
 * models opens them through the {@link dev.vantage.device.onnxruntime.OrtProfiling} service instead of creating
 * {@code OrtSession}s itself, and runs them through the {@link dev.vantage.device.onnxruntime.ProfiledSession} it
 * gets. While no profile records, a run is ONNX Runtime's own run; while one records, every run is a CPU op
 * {@code ort::run} and every node ONNX Runtime executed is device work linked to it.
 *
 * <p>A model that another ONNX Runtime runs (an application's own, which the Vantage agent reaches) is recorded the
 * same way once adopted ({@link dev.vantage.device.onnxruntime.OrtProfiling#adopt}): its
 * {@link dev.vantage.device.onnxruntime.ForeignModel} makes the profiling sessions, of that ONNX Runtime's version.
 *
 * <p>The bundle also exports ONNX Runtime's Java API ({@code ai.onnxruntime}, its version 1.29.0), so that every
 * bundle of the platform uses one ONNX Runtime and one copy of its natives.
 */
@Export
@Version("1.1.0")
package dev.vantage.device.onnxruntime;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
