package dev.vantage.trace.engine.summary;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One compared item: an operator, kernel, step or device, with its metrics in run A and run B.
 *
 * @param name what is compared: the operator's or kernel's name, the step's position ({@code 1}, {@code 2}, ...,
 *     or {@code mean}), the device
 * @param detail more about it: the kernel's type, the step numbers in A and B; the empty string when nothing
 * @param status {@code both}, {@code new} (only in B) or {@code vanished} (only in A)
 * @param metrics by metric name ({@code count}, {@code selfNanos}, ...), in display order
 */
public record Delta(String name, String detail, String status, Map<String, Value> metrics) {

    /** Copies the map, keeping its order. */
    public Delta {
        metrics = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(metrics));
    }

    /**
     * A metric's value in A and in B.
     *
     * @param a the value in A; null when the item is not in A
     * @param b the value in B; null when the item is not in B
     */
    public record Value(Long a, Long b) {

        /** Returns {@code b - a}, or null when either is missing. */
        public Long delta() {
            return a == null || b == null ? null : b - a;
        }

        /** Returns the change in percent of A, or null when either is missing or A is 0. */
        public Double deltaPercent() {
            return a == null || b == null || a == 0 ? null : (b - a) * 100.0 / a;
        }

        /** Returns the change for sorting: {@code b - a} with a missing side as 0. */
        long change() {
            return (b == null ? 0 : b) - (a == null ? 0 : a);
        }
    }
}
