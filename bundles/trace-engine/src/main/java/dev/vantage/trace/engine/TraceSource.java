package dev.vantage.trace.engine;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where a trace came from and what its reader met: the format read, every event by category as written (unknown
 * categories included), the events of categories the reader has no meaning for (kept as host events), and the events
 * read. A recorded window is {@link #RECORDED}.
 *
 * @param format {@code recorded}, {@code kineto} (torch's JSON object), {@code legacy} (torch's array without Kineto),
 *     {@code perfetto} (a {@code .pftrace}) or {@code onnxruntime} (ONNX Runtime's own profile)
 * @param categories events by category as written ({@code ""} for none), in the order first seen
 * @param unknownEvents complete events of categories the reader has no meaning for
 * @param events the complete and memory events read
 */
public record TraceSource(String format, Map<String, Long> categories, long unknownEvents, long events) {

    /** What a recorded window is. */
    public static final TraceSource RECORDED = new TraceSource("recorded", Map.of(), 0, 0);

    /** Copies the categories, keeping their order. */
    public TraceSource {
        categories = Collections.unmodifiableMap(new LinkedHashMap<>(categories));
    }
}
