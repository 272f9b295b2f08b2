package dev.vantage.profiler.memory;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Where {@link MemoryEvents} sends allocator events while a profile records memory. Implemented by the profiler
 * core; allocators call {@link MemoryEvents}, never a sink directly.
 */
@ProviderType
public interface MemorySink {

    /** See {@link MemoryEvents#allocated}. */
    void allocated(String deviceType, int deviceIndex, long address, long bytes, long totalAllocated,
            long totalReserved);

    /** See {@link MemoryEvents#outOfMemory}. */
    void outOfMemory(String deviceType, int deviceIndex, long bytes, long totalAllocated, long totalReserved);

    /**
     * See {@link MemoryEvents#categorize}. The default does nothing, for sinks that keep no categories.
     */
    default void categorized(String deviceType, int deviceIndex, long address, MemoryCategory category) {
    }

    /** See {@link MemoryEvents#collected}. The default does nothing, for sinks that count no late frees. */
    default void collected(String deviceType, int deviceIndex, long address, String allocatedBy) {
    }
}
