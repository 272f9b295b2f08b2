package dev.vantage.trace.engine;

import dev.vantage.trace.engine.store.Column;
import dev.vantage.trace.engine.store.HostRows;

/**
 * One thread's host events: its rows in the order they began, and the details some of them carry ({@link
 * dev.vantage.trace.engine.store.Details}, in row order), frozen.
 *
 * @param threadId the thread's id (the Java thread id of a recorded thread, the trace's tid of a read one)
 * @param name the thread's name
 * @param droppedEvents events the thread could not record (its buffer was full)
 * @param rows the events
 * @param details the events' details, or null when none has any
 */
public record HostThread(long threadId, String name, long droppedEvents, HostRows rows, Column details) {
}
