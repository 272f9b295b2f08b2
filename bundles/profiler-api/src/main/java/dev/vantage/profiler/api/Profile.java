package dev.vantage.profiler.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * One profile: started by {@link ProfileBuilder#start()}, moved through its schedule by {@link #step()}, ended by
 * {@link #stop()} or {@link #close()}. After it stopped, the {@link ProfileResult} methods read its last completed
 * cycle; before that they throw {@link IllegalStateException}. {@code step()} and {@code stop()} are meant for the
 * training thread, the thread that started the profile: the {@code ProfilerStep#N} annotations are recorded on it.
 */
@ProviderType
public interface Profile extends ProfileResult, AutoCloseable {

    /** Returns the current state. */
    ProfileState state();

    /**
     * Ends the current step: closes its {@code ProfilerStep#N} annotation, moves to the next step and takes the
     * schedule's action for it, delivering a completed cycle to the {@link TraceReadyHandler}s when one ends.
     *
     * @throws IllegalStateException if the profile was stopped
     */
    void step();

    /** Returns the current step number: 0 after start, one more after each {@link #step()}. */
    long stepNumber();

    /** Returns the schedule's action for the current step. */
    ProfilerAction currentAction();

    /**
     * Adds a key and value to the metadata of the traces from now on, as torch's {@code add_metadata}.
     *
     * @throws IllegalArgumentException if the key is empty
     */
    void addMetadata(String key, String value);

    /**
     * Stops the profile; afterwards the state is {@link ProfileState#STOPPED}. A cycle that was recording is
     * completed and delivered. Hands the recorded buffers over without processing them. Calling it again does
     * nothing.
     */
    void stop();

    /** Same as {@link #stop()}, for try-with-resources. */
    @Override
    void close();
}
