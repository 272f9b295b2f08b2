/**
 * The channel between a tensor runtime and the profiler: the static {@link dev.vantage.profiler.dispatch.Dispatch}
 * fast path a runtime calls around every op, the {@link dev.vantage.profiler.dispatch.OpCall} it describes the op
 * with, the {@link dev.vantage.profiler.dispatch.DispatchHook} whiteboard services that observe ops, and
 * {@link dev.vantage.profiler.dispatch.MemoryEvents}, through which allocators report allocations and frees, and
 * {@link dev.vantage.profiler.dispatch.MemoryScope}, through which a runtime says what its allocations hold
 * ({@link dev.vantage.profiler.dispatch.MemoryCategory}).
 *
 * <p>{@code OpCall} and {@code MemorySink} are provider types: only the runtime and the profiler core implement them,
 * and they import this package with a minor-version range. A hook or an allocator only implements consumer types
 * and calls the rest, so it imports {@code [1.x,2)}.
 */
@Export
@Version("1.1.0")
package dev.vantage.profiler.dispatch;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
