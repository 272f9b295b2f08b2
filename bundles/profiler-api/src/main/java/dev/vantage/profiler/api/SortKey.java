package dev.vantage.profiler.api;

import java.util.Locale;

/**
 * The orders {@link KeyAverages#table} accepts, named as torch's {@code sort_by} strings. Device keys accept every
 * device spelling torch does ({@code cuda_time_total}, {@code xpu_time_total}, {@code privateuse1_time_total})
 * and the device names of this platform ({@code npu_time_total}, {@code spyre_time_total}, {@code mps_time_total}).
 * Rows sort largest first.
 */
public enum SortKey {
    /** Total host time. */
    CPU_TIME_TOTAL("cpu_time_total"),
    /** Host time less the time of nested events. */
    SELF_CPU_TIME_TOTAL("self_cpu_time_total"),
    /** Average host time per call. */
    CPU_TIME("cpu_time"),
    /** Total device time of the kernels the events launched, nested ones included. */
    DEVICE_TIME_TOTAL("device_time_total"),
    /** Device time of the kernels the events launched themselves. */
    SELF_DEVICE_TIME_TOTAL("self_device_time_total"),
    /** Average device time per call. */
    DEVICE_TIME("device_time"),
    /** Host memory allocated less freed, nested events included. */
    CPU_MEMORY_USAGE("cpu_memory_usage"),
    /** Host memory allocated less freed by the events themselves. */
    SELF_CPU_MEMORY_USAGE("self_cpu_memory_usage"),
    /** Device memory allocated less freed, nested events included. */
    DEVICE_MEMORY_USAGE("device_memory_usage"),
    /** Device memory allocated less freed by the events themselves. */
    SELF_DEVICE_MEMORY_USAGE("self_device_memory_usage"),
    /** Number of calls. */
    COUNT("count"),
    /** The 99th percentile of host time per call (not in torch). */
    CPU_TIME_P99("cpu_time_p99");

    private final String torchName;

    SortKey(String torchName) {
        this.torchName = torchName;
    }

    /** Returns the name, such as {@code self_cpu_time_total}. */
    public String torchName() {
        return torchName;
    }

    /**
     * Parses a sort key name.
     *
     * @throws IllegalArgumentException if no key has that name; the message lists the known ones
     */
    public static SortKey parse(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT)
                .replaceAll("(^|_)(cuda|xpu|mtia|privateuse1|npu|spyre|mps)(_|$)", "$1device$3");
        for (SortKey k : values()) {
            if (k.torchName.equals(n)) {
                return k;
            }
        }
        StringBuilder known = new StringBuilder();
        for (SortKey k : values()) {
            known.append(known.length() == 0 ? "" : ", ").append(k.torchName);
        }
        throw new IllegalArgumentException("unknown sort key '" + name + "'; known: " + known);
    }
}
