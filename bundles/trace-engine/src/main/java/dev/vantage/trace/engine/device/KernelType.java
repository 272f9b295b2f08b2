package dev.vantage.trace.engine.device;

import dev.vantage.profiler.trace.EventKind;
import dev.vantage.trace.engine.DeviceNames;
import dev.vantage.trace.engine.DeviceRows;

/**
 * What a piece of device work is, as HTA's kernel breakdown groups it. Copies and fills are {@link #MEMORY} by their
 * category ({@code gpu_memcpy}, {@code gpu_memset}); a kernel is {@link #COMMUNICATION} when the engine's table of
 * communication names says so ({@link DeviceNames#isCommunication}: NCCL's, RCCL's and HCCL's kernels, or any carrying a
 * {@code Collective name}), else {@link #COMPUTATION}.
 */
public enum KernelType {
    /** A kernel that computes. */
    COMPUTATION,
    /** A kernel that moves data between ranks. */
    COMMUNICATION,
    /** A copy or a fill. */
    MEMORY;

    /** Returns the type of a row's device work, or null for a row that is not device work (a memory instant, a GC pause). */
    public static KernelType of(DeviceRows rows, int i) {
        EventKind kind = rows.kind(i);
        if (kind == EventKind.GPU_MEMCPY || kind == EventKind.GPU_MEMSET) {
            return MEMORY;
        }
        if (kind != EventKind.KERNEL) {
            return null;
        }
        return rows.isCommunication(i) ? COMMUNICATION : COMPUTATION;
    }
}
