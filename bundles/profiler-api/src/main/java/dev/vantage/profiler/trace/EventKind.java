package dev.vantage.profiler.trace;

/**
 * What an event is. Each kind has a stable id (a retired id stays reserved) and the Kineto category string that
 * trace viewers key on.
 */
public enum EventKind {
    /** An op dispatched by the runtime on a host thread. */
    CPU_OP(0, "cpu_op"),
    /** A user annotation: {@code RecordFunction} scopes, {@code ProfilerStep#N}, optimizer steps. */
    USER_ANNOTATION(1, "user_annotation"),
    /** A kernel executed on a device stream. */
    KERNEL(2, "kernel"),
    /** A copy executed on a device stream. */
    GPU_MEMCPY(3, "gpu_memcpy"),
    /** A memory fill executed on a device stream. */
    GPU_MEMSET(4, "gpu_memset"),
    /** A device runtime call on a host thread, such as a kernel launch. */
    RUNTIME(5, "privateuse1_runtime"),
    /** An allocation or free, an instant on the allocating thread (Kineto's {@code [memory]}). */
    MEMORY(6, "cpu_instant_event"),
    /** An allocation that failed for lack of memory (Kineto's {@code [OutOfMemory]}). */
    OUT_OF_MEMORY(7, "cpu_instant_event"),
    /** A pause of the JVM's garbage collector, on its own track (not in Kineto). */
    GC(8, "gc");

    /** Returns true for work executed on a device: kernels, copies and fills. */
    public boolean isDeviceWork() {
        return this == KERNEL || this == GPU_MEMCPY || this == GPU_MEMSET;
    }

    private final int id;
    private final String category;

    EventKind(int id, String category) {
        this.id = id;
        this.category = category;
    }

    private static final EventKind[] BY_ID = byId();

    private static EventKind[] byId() {
        int max = 0;
        for (EventKind k : values()) {
            max = Math.max(max, k.id);
        }
        EventKind[] table = new EventKind[max + 1];
        for (EventKind k : values()) {
            table[k.id] = k;
        }
        return table;
    }

    /**
     * Returns the kind with a stable id.
     *
     * @throws IllegalArgumentException if no kind has that id
     */
    public static EventKind ofId(int id) {
        EventKind kind = id >= 0 && id < BY_ID.length ? BY_ID[id] : null;
        if (kind == null) {
            throw new IllegalArgumentException("no event kind has id " + id);
        }
        return kind;
    }

    /** Returns the stable id. */
    public int id() {
        return id;
    }

    /** Returns the Kineto {@code cat} string. */
    public String category() {
        return category;
    }
}
