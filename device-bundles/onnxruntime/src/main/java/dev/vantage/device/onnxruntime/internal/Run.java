package dev.vantage.device.onnxruntime.internal;

/**
 * One {@code OrtSession.run} made on a profiling session, as the Java side saw it.
 *
 * @param correlation the profiler's handle of its {@code ort::run} op, or -1 when no recorder saw it
 * @param javaThreadId the calling Java thread
 * @param nativeTid the calling thread's operating-system id (ONNX Runtime's {@code tid}), or -1 when unknown
 * @param startNanos when the call into ONNX Runtime began, on {@link System#nanoTime()}
 * @param endNanos when it returned
 */
record Run(long correlation, long javaThreadId, long nativeTid, long startNanos, long endNanos) {
}
