package dev.vantage.profiler.api;

/** The orders {@link KeyAverages#table(SortKey, int)} accepts, named as torch's {@code sort_by} strings. */
public enum SortKey {
    /** Total time, largest first. */
    CPU_TIME_TOTAL("cpu_time_total"),
    /** Self time, largest first. */
    SELF_CPU_TIME_TOTAL("self_cpu_time_total"),
    /** Average time per call, largest first. */
    CPU_TIME("cpu_time"),
    /** Number of calls, largest first. */
    COUNT("count");

    private final String torchName;

    SortKey(String torchName) {
        this.torchName = torchName;
    }

    /** Returns the torch name, such as {@code self_cpu_time_total}. */
    public String torchName() {
        return torchName;
    }

    /**
     * Parses a torch sort key name.
     *
     * @throws IllegalArgumentException if no key has that name; the message lists the known ones
     */
    public static SortKey parse(String name) {
        for (SortKey k : values()) {
            if (k.torchName.equals(name)) {
                return k;
            }
        }
        throw new IllegalArgumentException("unknown sort key '" + name
                + "'; known: cpu_time_total, self_cpu_time_total, cpu_time, count");
    }
}
