package dev.vantage.profiler.trace;

import java.util.Map;
import java.util.Objects;

/**
 * A device that did work in a trace.
 *
 * @param type the device type, such as {@code npu}
 * @param index the device index, 0 or greater
 * @param emulated true when the device is emulated in software rather than real hardware
 * @param properties device properties for the trace's {@code deviceProperties} (name, memory, cores, ...)
 */
public record TraceDevice(String type, int index, boolean emulated, Map<String, String> properties) {

    /** Checks and copies the fields. */
    public TraceDevice {
        Objects.requireNonNull(type, "type");
        if (index < 0) {
            throw new IllegalArgumentException("negative device index " + index);
        }
        properties = Map.copyOf(properties);
    }
}
