package dev.vantage.profiler.trace;

import java.util.Map;
import java.util.Objects;

/**
 * A device that did work in a trace.
 *
 * @param type the device type, such as {@code npu}
 * @param index the device index, 0 or greater
 * @param emulated true when the device is emulated in software rather than real hardware
 * @param properties device properties for the trace's {@code deviceProperties} (name, memory, cores, ...); two
 *     keys are also shown where users look, when present: {@link #LABEL} and {@link #ROW_NAME}
 */
public record TraceDevice(String type, int index, boolean emulated, Map<String, String> properties) {

    /**
     * The property that says what the device is, in a few words, where a user looks at it: after the device's
     * name on its trace row ({@code ORT 0 (CPUExecutionProvider)}) and in the op table's footer. ONNX Runtime's
     * device gives its execution provider here.
     *
     * @since 1.5
     */
    public static final String LABEL = "label";

    /**
     * The property that names the device's rows in place of {@code stream}: {@code thread} for a runtime whose
     * work runs on its own threads rather than streams, so that its rows read {@code thread 4242}.
     *
     * @since 1.5
     */
    public static final String ROW_NAME = "row_name";

    /** Checks and copies the fields. */
    public TraceDevice {
        Objects.requireNonNull(type, "type");
        if (index < 0) {
            throw new IllegalArgumentException("negative device index " + index);
        }
        properties = Map.copyOf(properties);
    }
}
