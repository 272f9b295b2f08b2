package dev.vantage.profiler.api;

import java.util.Locale;

/**
 * What a profile records, as in {@code torch.profiler.ProfilerActivity}: CPU ops and annotations, the activity of
 * one kind of device, or memory events.
 */
public enum Activity {
    /** Ops dispatched on host threads and user annotations. */
    CPU,
    /** Kernels, copies and runtime calls of NPU devices. */
    NPU,
    /** Kernels, copies and runtime calls of Spyre devices (the PrivateUse1 backend). */
    SPYRE,
    /** Command buffers and kernels of MPS devices. */
    MPS,
    /** Allocator events of every device. */
    MEM;

    /**
     * Parses an activity name, ignoring case.
     *
     * @param name an activity name such as {@code cpu} or {@code NPU}; not null
     * @return the activity
     * @throws IllegalArgumentException if no activity has that name; the message names the value and the choices
     */
    public static Activity parse(String name) {
        String upper = name.trim().toUpperCase(Locale.ROOT);
        for (Activity a : values()) {
            if (a.name().equals(upper)) {
                return a;
            }
        }
        throw new IllegalArgumentException("unknown activity '" + name + "'; known: CPU, NPU, SPYRE, MPS, MEM");
    }
}
