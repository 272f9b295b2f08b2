/**
 * The service interfaces plugins implement: {@link dev.vantage.profiler.spi.DispatchHook},
 * {@link dev.vantage.profiler.spi.DeviceActivitySource}, {@link dev.vantage.profiler.spi.MemoryAllocator} and
 * {@link dev.vantage.profiler.spi.TraceExporter}, registered as whiteboard services, plus the static
 * {@link dev.vantage.profiler.spi.Dispatch} fast path a runtime calls around every op.
 */
@Export
@Version("1.4.0")
package dev.vantage.profiler.spi;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
