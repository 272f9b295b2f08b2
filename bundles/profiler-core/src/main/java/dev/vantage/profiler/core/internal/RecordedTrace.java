package dev.vantage.profiler.core.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.vantage.profiler.spi.OpNames;
import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.Trace;
import dev.vantage.profiler.trace.TraceThread;

/**
 * A stopped profile as the immutable trace model exporters read. Cursors read the recorded columns directly;
 * timestamps are converted from {@code System.nanoTime()} to epoch nanoseconds with one offset, taken when the
 * profile started.
 */
final class RecordedTrace implements Trace {

    private final RecordedEvents events;
    private final long epochOffsetNanos;
    private final long startNanos;
    private final String processName;
    private final Map<String, String> metadata;
    private final List<TraceThread> threads;

    RecordedTrace(RecordedEvents events, long epochOffsetNanos, long startNanos, String processName,
            Map<String, String> metadata) {
        this.events = events;
        this.epochOffsetNanos = epochOffsetNanos;
        this.startNanos = startNanos;
        this.processName = processName;
        List<TraceThread> list = new ArrayList<>();
        for (ThreadBuffer.Snapshot s : events.threads) {
            list.add(new TraceThread(s.threadId(), s.threadName(), s.dropped()));
        }
        this.threads = List.copyOf(list);
        Map<String, String> all = new TreeMap<>(metadata);
        all.put("vantage.dropped_events", Long.toString(events.droppedEvents));
        this.metadata = Collections.unmodifiableMap(all);
    }

    @Override
    public long processId() {
        return ProcessHandle.current().pid();
    }

    @Override
    public String processName() {
        return processName;
    }

    @Override
    public long startEpochNanos() {
        return startNanos + epochOffsetNanos;
    }

    @Override
    public long endEpochNanos() {
        return events.stopNanos + epochOffsetNanos;
    }

    @Override
    public List<TraceThread> threads() {
        return threads;
    }

    @Override
    public long eventCount() {
        return events.eventCount;
    }

    @Override
    public long droppedEvents() {
        return events.droppedEvents;
    }

    @Override
    public Map<String, String> metadata() {
        return metadata;
    }

    @Override
    public EventCursor events() {
        return new Cursor();
    }

    private final class Cursor implements EventCursor {
        private int thread;
        private int index = -1;
        private ThreadBuffer.Snapshot current = events.threads.isEmpty() ? null : events.threads.get(0);

        @Override
        public boolean next() {
            while (current != null) {
                if (index + 1 < current.size()) {
                    index++;
                    return true;
                }
                thread++;
                index = -1;
                current = thread < events.threads.size() ? events.threads.get(thread) : null;
            }
            return false;
        }

        @Override
        public String name() {
            return OpNames.name(current.name(index));
        }

        @Override
        public EventKind kind() {
            return EventKind.ofId(current.kind(index));
        }

        @Override
        public long threadId() {
            return current.threadId();
        }

        @Override
        public long startEpochNanos() {
            return current.start(index) + epochOffsetNanos;
        }

        @Override
        public long durationNanos() {
            return events.end(current, index) - current.start(index);
        }

        @Override
        public long eventId() {
            return events.firstId[thread] + index;
        }
    }
}
