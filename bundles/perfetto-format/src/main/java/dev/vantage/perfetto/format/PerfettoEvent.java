package dev.vantage.perfetto.format;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One track event as {@link PerfettoTraceReader#stream} resolves it from its packet, in file order: interned names
 * looked up, the timestamp made absolute, a counter's value scaled by its descriptor and summed when incremental.
 * Begin and end events are not paired here: a slice is the events of one track between a begin and its end.
 *
 * @param type what the event is
 * @param timestampNanos when, in the trace's clock (Vantage writes nanoseconds since the Unix epoch)
 * @param trackUuid the track it is on (the sequence's default track when it names none)
 * @param name the event's name, or the empty string (always empty for a counter)
 * @param category its categories, comma-separated, or the empty string
 * @param correlationId its {@code correlation_id}, or -1; a {@code correlation_id_str} is among the args as
 *     {@code correlation_id}
 * @param args its debug annotations by name, in the order written ({@code Long}, {@code Double}, {@code Boolean},
 *     {@code String}, {@code List}, {@code Map})
 * @param flowIds the flows it starts or continues
 * @param terminatingFlowIds the flows it ends
 * @param counterValue a counter's value; 0 for other events
 */
public record PerfettoEvent(Type type, long timestampNanos, long trackUuid, String name, String category,
        long correlationId, Map<String, Object> args, List<Long> flowIds, List<Long> terminatingFlowIds,
        double counterValue) {

    /** What an event is. */
    public enum Type {
        /** The start of a slice ({@code TYPE_SLICE_BEGIN}). */
        SLICE_BEGIN,
        /** The end of the innermost open slice of its track ({@code TYPE_SLICE_END}). */
        SLICE_END,
        /** An instant ({@code TYPE_INSTANT}). */
        INSTANT,
        /** A value of a counter track ({@code TYPE_COUNTER}). */
        COUNTER
    }

    /** Checks and copies. */
    public PerfettoEvent {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(category, "category");
        args = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(args));
        flowIds = List.copyOf(flowIds);
        terminatingFlowIds = List.copyOf(terminatingFlowIds);
    }
}
