package dev.vantage.profiler.core.internal;

import dev.vantage.profiler.memory.MemoryCategory;

/**
 * A runtime's report that a live block holds {@code category} ({@code MemoryEvents.categorize}): applied to the
 * block's whole life when a memory timeline is built.
 *
 * @param nanos when it was reported, {@code System.nanoTime()}
 * @param deviceType the block's device type
 * @param deviceIndex the block's device index, -1 for host memory
 * @param address the block's address
 * @param category what the block holds
 */
record Recategorized(long nanos, String deviceType, int deviceIndex, long address, MemoryCategory category) {
}
