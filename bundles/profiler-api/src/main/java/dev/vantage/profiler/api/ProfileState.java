package dev.vantage.profiler.api;

/** The lifecycle of a {@link Profile}: it records from {@link ProfileBuilder#start()} until {@link Profile#stop()}. */
public enum ProfileState {
    /** Created, not started yet. */
    CREATED,
    /** Running: recording, or waiting for its schedule to record. */
    RECORDING,
    /** Stopped: the trace is final and can be read and exported. */
    STOPPED
}
