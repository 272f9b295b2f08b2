/**
 * Device memory as PyTorch's caching allocator manages it, for every accelerator bundle: segments obtained from a
 * device heap ({@link dev.vantage.device.kit.memory.DeviceHeap}), split into blocks, freed blocks cached per stream
 * and reused ({@link dev.vantage.device.kit.memory.CachingAllocator}); the counters under the names of torch's
 * {@code memory_stats()} ({@link dev.vantage.device.kit.memory.AllocatorStats}); a bounded history of allocator
 * actions for snapshots; and an out-of-memory error with torch's message
 * ({@link dev.vantage.device.kit.memory.DeviceOutOfMemoryError}). A device whose memory is managed otherwise (the
 * Spyre bundle's VF block allocator) implements {@link dev.vantage.device.kit.memory.BlockAllocator} over the same
 * counters and history.
 */
@Export
@Version("2.1.0")
package dev.vantage.device.kit.memory;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
