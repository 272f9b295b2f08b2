package dev.vantage.device.mps.internal;

import java.util.List;
import java.util.Map;

import dev.vantage.device.kit.emulation.Fence;
import dev.vantage.profiler.trace.EventKind;

/**
 * One command encoded into a command buffer.
 *
 * @param kind {@link EventKind#KERNEL}, {@link EventKind#GPU_MEMCPY} or {@link EventKind#GPU_MEMSET}
 * @param name its name in traces
 * @param args the facts its device record carries, the command buffer id included
 * @param correlation the correlation id joining it to its encode call's record, or -1 when it is not recorded
 * @param dependencies work on other streams it waits for before it runs
 * @param body the work itself
 */
record Command(EventKind kind, String name, Map<String, String> args, long correlation, List<Fence> dependencies,
        Runnable body) {
}
