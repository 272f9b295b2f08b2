/**
 * The MPS driver interface: what Apple's Metal and Metal Performance Shaders provide to the bundle (device memory
 * in unified memory, a pool of command queues, command buffers that work is encoded into and committed, their GPU
 * start and end times). The bundle ships an emulated driver; a vendor's bundle that registers a
 * {@link dev.vantage.device.mps.driver.MetalDriver} service with a higher {@code service.ranking} replaces it, and
 * the backend, activity source and allocator of this bundle run on that driver instead.
 */
@Export
@Version("2.0.0")
package dev.vantage.device.mps.driver;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
