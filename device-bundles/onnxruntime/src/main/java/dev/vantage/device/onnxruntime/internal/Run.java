package dev.vantage.device.onnxruntime.internal;

/**
 * One {@code OrtSession.run} made on a profiling session, as the Java side saw it.
 *
 * @param correlation the profiler's handle of its {@code ort::run} op, or -1 when no recorder saw it
 * @param javaThreadId the calling Java thread
 * @param nativeTid the calling thread's operating-system id (ONNX Runtime's {@code tid}), or -1 when unknown
 * @param startNanos when the call into ONNX Runtime began, on {@link System#nanoTime()}
 * @param endNanos when it returned
 * @param inWindow whether the run is inside the profile's window: a recorder saw it (its {@code ort::run} is in
 *     the trace), or a host op was open around it. A run a twin took between the window's device sessions
 *     starting and its recorder starting, or between the recorder stopping and the sessions stopping, is neither
 *     (ONNX Runtime profiled it, but it is outside the window, and is counted as such, as Kineto counts
 *     out-of-range records)
 */
record Run(long correlation, long javaThreadId, long nativeTid, long startNanos, long endNanos, boolean inWindow) {
}
