/**
 * The Spyre driver interfaces: what the vendor's native stack provides to the bundle. {@link
 * dev.vantage.device.spyre.driver.SpyreDriver} is the runtime (device memory, streams, compute launches, DMA
 * copies and fills, lazy device initialisation), and {@link dev.vantage.device.spyre.driver.SpyreTracing} is the
 * tracing library (AIUPTI-like activity records, external correlation, device clock reads) that the driver loads
 * only when the first profile asks for device activity.
 *
 * <p>The bundle ships an emulated driver registered with {@code service.ranking} -100; a vendor's bundle that
 * registers a {@link dev.vantage.device.spyre.driver.SpyreDriver} service with a higher ranking replaces it, and
 * the backend, activity source and allocator of this bundle run on that driver instead.
 */
@Export
@Version("2.0.0")
package dev.vantage.device.spyre.driver;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
