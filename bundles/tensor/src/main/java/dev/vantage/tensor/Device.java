package dev.vantage.tensor;

import java.util.Locale;
import java.util.Objects;

/**
 * Where a tensor lives: a device type such as {@code cpu} or {@code npu} and an index.
 *
 * @param type the device type, lower case
 * @param index the device index, 0 or greater
 */
public record Device(String type, int index) {

    /** The host. */
    public static final Device CPU = new Device("cpu", 0);

    /**
     * Checks the fields.
     *
     * @throws IllegalArgumentException if the type is empty or not lower case, or the index is negative
     */
    public Device {
        Objects.requireNonNull(type, "type");
        if (type.isEmpty() || !type.equals(type.toLowerCase(Locale.ROOT))) {
            throw new IllegalArgumentException("device type must be non-empty lower case, not '" + type + "'");
        }
        if (index < 0) {
            throw new IllegalArgumentException("device index must be 0 or more, not " + index);
        }
    }

    /**
     * Parses {@code cpu}, {@code npu} or {@code npu:1}.
     *
     * @throws IllegalArgumentException if the text is not of that form; the message names it
     */
    public static Device parse(String text) {
        Objects.requireNonNull(text, "text");
        int colon = text.indexOf(':');
        try {
            return colon < 0 ? new Device(text, 0)
                    : new Device(text.substring(0, colon), Integer.parseInt(text.substring(colon + 1)));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not a device: '" + text + "' (expected like cpu, npu or npu:1)", e);
        }
    }

    @Override
    public String toString() {
        return type + ":" + index;
    }
}
