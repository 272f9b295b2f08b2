/**
 * The channel between a tensor runtime and the profiler: the static {@link dev.vantage.profiler.dispatch.Dispatch}
 * fast path a runtime calls around every op, the {@link dev.vantage.profiler.dispatch.OpCall} it describes the op
 * with, the {@link dev.vantage.profiler.dispatch.DispatchHook} whiteboard services that observe ops, and the
 * per-thread slots ({@link dev.vantage.profiler.dispatch.DispatchThread}) both sides keep their state in. Allocators
 * report memory through {@code dev.vantage.profiler.memory} instead.
 *
 * <p>{@code OpCall} is the only provider type: the tensor runtime implements it and imports this package with a
 * minor-version range. A hook only implements a consumer type and calls the rest, so it imports {@code [2.x,3)}.
 */
@Export
@Version("2.0.0")
package dev.vantage.profiler.dispatch;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
