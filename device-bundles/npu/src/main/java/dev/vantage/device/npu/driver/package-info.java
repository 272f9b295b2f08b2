/**
 * The NPU driver interface: what the vendor's native runtime (Ascend's ACL) provides to the bundle. The bundle
 * ships an emulated driver; a vendor's bundle that registers an {@link dev.vantage.device.npu.driver.NpuDriver}
 * service with a higher {@code service.ranking} replaces it, and the backend, activity source and allocator of
 * this bundle run on that driver instead.
 */
@Export
@Version("1.1.0")
package dev.vantage.device.npu.driver;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
