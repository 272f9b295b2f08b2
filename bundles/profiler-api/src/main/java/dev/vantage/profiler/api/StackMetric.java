package dev.vantage.profiler.api;

/** The value {@link ProfileResult#exportStacks} writes for each stack, named as torch's metric strings. */
public enum StackMetric {
    /** Host time spent in the op itself, in microseconds. */
    SELF_CPU_TIME_TOTAL("self_cpu_time_total"),
    /** Device time of the kernels the op launched itself, in microseconds. */
    SELF_DEVICE_TIME_TOTAL("self_device_time_total");

    private final String torchName;

    StackMetric(String torchName) {
        this.torchName = torchName;
    }

    /** Returns the torch name. */
    public String torchName() {
        return torchName;
    }

    /**
     * Parses a metric name; {@code self_cuda_time_total}, {@code self_npu_time_total} and the other device names
     * mean {@link #SELF_DEVICE_TIME_TOTAL}.
     *
     * @throws IllegalArgumentException if the name is not a metric; the message lists the known ones
     */
    public static StackMetric parse(String name) {
        if (name.equals(SELF_CPU_TIME_TOTAL.torchName)) {
            return SELF_CPU_TIME_TOTAL;
        }
        if (name.matches("self_(device|cuda|xpu|mtia|privateuse1|npu|spyre|mps)_time_total")) {
            return SELF_DEVICE_TIME_TOTAL;
        }
        throw new IllegalArgumentException("unknown stack metric '" + name
                + "'; known: self_cpu_time_total, self_device_time_total");
    }
}
