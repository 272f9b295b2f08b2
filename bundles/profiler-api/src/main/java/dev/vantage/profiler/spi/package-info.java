/**
 * The service interfaces a plugin implements: {@link dev.vantage.profiler.spi.DeviceActivitySource} (with its
 * {@link dev.vantage.profiler.spi.ActivitySession}), {@link dev.vantage.profiler.spi.MemoryAllocator} and
 * {@link dev.vantage.profiler.spi.TraceExporter}, registered as whiteboard services, and the values they exchange.
 *
 * <p>Every interface here is a consumer type: a minor version only adds what a plugin may ignore, so a plugin built
 * against 2.x imports {@code [2.x,3)}. The controls that only the platform's own bundles implement or call (the
 * dispatch fast path, memory event publication) live in {@code dev.vantage.profiler.dispatch}.
 */
@Export
@Version("2.2.0")
package dev.vantage.profiler.spi;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
