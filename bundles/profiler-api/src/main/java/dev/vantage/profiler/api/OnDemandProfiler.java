package dev.vantage.profiler.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Profiling a running platform on demand, without restarting it: one capture at a time, started and stopped from
 * outside the workload (by attaching to the process, from the Gogo shell, or by a configuration file dropped into
 * the deploy directory), its traces written as a {@code run}'s are and its path logged. Implemented by the
 * profiler core; also reachable over JMX as the MBean {@code dev.vantage:type=Profiler}. Thread-safe.
 *
 * <p>A long-running workload calls {@link #step()} at each step boundary (a served request, a training
 * iteration), as torch's Kineto counts iterations: iteration windows and step-aligned starts need it. With no
 * capture waiting or recording, a step costs a volatile read.
 */
@ProviderType
public interface OnDemandProfiler {

    /**
     * Starts a capture, or arms it to start at the next step boundary.
     *
     * @return a description of the capture: its window, what it records, where its traces will go
     * @throws IllegalStateException if a capture is waiting or recording; the message describes it
     * @throws IllegalArgumentException if an activity or export format is not installed, or the traces' directory
     *     cannot be written to (it is checked before the capture starts)
     */
    String start(CaptureRequest request);

    /**
     * Stops the capture now and writes its traces; a capture still waiting for its first step is cancelled.
     *
     * @return the paths written, one per line, or what was cancelled
     * @throws IllegalStateException if no capture is waiting or recording, or if a trace or the run registry's line
     *     could not be written (the message says what was written and what failed)
     */
    String stop();

    /** Returns the state: idle, waiting or recording (with the window so far), and the last capture's files. */
    String status();

    /** Marks a step boundary of the platform's workload. */
    void step();

    /**
     * Returns the key averages table of the last finished capture, as {@code run} prints it.
     *
     * @throws IllegalStateException if no capture has finished yet
     */
    String table(TableOptions options);
}
