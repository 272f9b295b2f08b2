package dev.vantage.profiler.trace;

import java.util.Objects;

/**
 * A host thread that recorded events.
 *
 * @param id the Java thread id
 * @param name the thread name when it first recorded
 * @param droppedEvents events this thread could not record because the buffer limit was reached
 */
public record TraceThread(long id, String name, long droppedEvents) {

    /** Checks the name. */
    public TraceThread {
        Objects.requireNonNull(name, "name");
    }
}
