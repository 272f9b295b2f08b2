package dev.vantage.perfetto.format;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A Perfetto trace as read by {@link PerfettoTraceReader}: what a trace viewer would show, resolved from the packets
 * (interned names looked up, timestamps made absolute, begin and end events paired into slices).
 *
 * @param tracks every track a descriptor declared, in file order
 * @param slices slices and instants in time order (ties in file order), as Perfetto's importer orders them
 * @param counters counter values in time order
 * @param flows arrows between slices, in the order they were drawn
 * @param attributes the trace's {@code TraceAttributes}, later keys overriding earlier ones
 * @param packets the number of packets in the file
 * @param problems what the reader could not make sense of (an end without a begin, an unknown interning id, ...);
 *     empty for a well-formed trace
 */
public record PerfettoTrace(List<Track> tracks, List<Slice> slices, List<Counter> counters, List<Flow> flows,
        Map<String, String> attributes, long packets, List<String> problems) {

    /** Copies the lists. */
    public PerfettoTrace {
        tracks = List.copyOf(tracks);
        slices = List.copyOf(slices);
        counters = List.copyOf(counters);
        flows = List.copyOf(flows);
        attributes = Map.copyOf(attributes);
        problems = List.copyOf(problems);
    }

    /** What a track is. */
    public enum TrackKind {
        /** A process ({@code ProcessDescriptor}): a parent of thread and other tracks. */
        PROCESS,
        /** A thread ({@code ThreadDescriptor}): slices of one thread. */
        THREAD,
        /** A counter ({@code CounterDescriptor}). */
        COUNTER,
        /** A track of its own name, for slices, under a parent or at the top. */
        CUSTOM
    }

    /**
     * A track declared by a {@code TrackDescriptor}.
     *
     * @param uuid the track's id
     * @param parentUuid the parent's id, or 0 for none
     * @param kind what the track is
     * @param name the track's own name, a process's or thread's name, or the empty string
     * @param pid the process id of a process or thread track, or -1
     * @param tid the thread id of a thread track, or -1
     * @param rank the {@code sibling_order_rank}, or 0
     * @param labels a process's labels
     * @param unit a counter's unit ({@code UNIT_SIZE_BYTES}, or its unit name), or the empty string
     */
    public record Track(long uuid, long parentUuid, TrackKind kind, String name, long pid, long tid, int rank,
            List<String> labels, String unit) {

        /** Checks and copies. */
        public Track {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(name, "name");
            labels = List.copyOf(labels);
            Objects.requireNonNull(unit, "unit");
        }
    }

    /**
     * A slice or an instant on a track.
     *
     * @param index the slice's position in {@link #slices()}
     * @param trackUuid the track it is on
     * @param startNanos the start, in the trace's clock (Vantage writes nanoseconds since the Unix epoch)
     * @param durationNanos the duration; 0 for an instant; -1 for a slice that never ended
     * @param name the name, or the empty string
     * @param category the categories, comma-separated, or the empty string
     * @param instant whether this is an instant ({@code TYPE_INSTANT}) rather than a begin/end pair
     * @param depth how many slices of the same track it is nested in
     * @param parent the index of the slice it is directly nested in, or -1
     * @param correlationId the event's {@code correlation_id} (slices of one logical operation share it), or -1;
     *     a {@code correlation_id_str} is among the {@code args} as {@code correlation_id}
     * @param args its debug annotations by name: {@code Long}, {@code Double}, {@code Boolean}, {@code String},
     *     {@code List} and {@code Map} values, in the order they were written
     */
    public record Slice(int index, long trackUuid, long startNanos, long durationNanos, String name, String category,
            boolean instant, int depth, int parent, long correlationId, Map<String, Object> args) {

        /** Returns the end, or the start for an instant or a slice that never ended. */
        public long endNanos() {
            return startNanos + Math.max(0, durationNanos);
        }
    }

    /**
     * One value of a counter track.
     *
     * @param trackUuid the counter's track
     * @param timeNanos when the value was taken
     * @param value the value
     */
    public record Counter(long trackUuid, long timeNanos, double value) {
    }

    /**
     * An arrow from one slice to another.
     *
     * @param id the flow id the trace gave it
     * @param from the index of the slice it leaves
     * @param to the index of the slice it reaches
     */
    public record Flow(long id, int from, int to) {
    }

    /** Returns the track with an id, or null. */
    public Track track(long uuid) {
        for (Track t : tracks) {
            if (t.uuid() == uuid) {
                return t;
            }
        }
        return null;
    }

}
