/**
 * The service interfaces a plugin implements: {@link dev.vantage.profiler.spi.DeviceActivitySource} (with its
 * {@link dev.vantage.profiler.spi.ActivitySession}), {@link dev.vantage.profiler.spi.MemoryAllocator},
 * {@link dev.vantage.profiler.spi.TraceExporter} and {@link dev.vantage.profiler.spi.ViewExporter}, registered as
 * whiteboard services, and the values they exchange. This package depends on {@code dev.vantage.profiler.api} (for
 * {@code Activity} and the memory values), never the other way round.
 *
 * <p>Every interface here is a consumer type: a minor version only adds what a plugin may ignore, so a plugin built
 * against 3.x imports {@code [3.x,4)}. The controls that only the platform's own bundles implement or call (the
 * dispatch fast path, memory event publication) live in {@code dev.vantage.profiler.dispatch} and
 * {@code dev.vantage.profiler.memory}.
 */
@Export
@Version("3.2.0")
package dev.vantage.profiler.spi;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
