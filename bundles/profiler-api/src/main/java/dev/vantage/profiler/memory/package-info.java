/**
 * The channel between allocators and the profiler: {@link dev.vantage.profiler.memory.MemoryEvents}, through which
 * allocators report allocations and frees on a fast path (one field read when no profile records memory),
 * {@link dev.vantage.profiler.memory.MemoryScope} and {@link dev.vantage.profiler.memory.MemoryThread}, through
 * which a runtime says what its allocations hold ({@link dev.vantage.profiler.memory.MemoryCategory}), and the
 * {@link dev.vantage.profiler.memory.MemorySink} the profiler core publishes.
 *
 * <p>{@code MemorySink} is the only provider type: the profiler core implements it and imports this package with a
 * minor-version range. Allocators and runtimes only call the rest, so they import {@code [1.x,2)}.
 */
@Export
@Version("1.1.0")
package dev.vantage.profiler.memory;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
