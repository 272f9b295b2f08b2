/**
 * Emulated silicon, for device bundles whose hardware is absent: what a vendor's native library would do, done
 * on the JVM so that the bundle around it is real. An {@link dev.vantage.device.kit.emulation.EmulatedDevice}
 * has device memory separate from host memory with a capacity ({@link dev.vantage.device.kit.emulation.DeviceMemory}),
 * in-order streams each served by its own worker thread ({@link dev.vantage.device.kit.emulation.EmulatedStream}),
 * asynchronous launches that return at once, kernels that compute real results (the host backend's kernels run
 * over device memory), and activity records stamped on a device clock with its own offset and drift
 * ({@link dev.vantage.device.kit.emulation.EmulatedClock}).
 */
@Export
@Version("3.0.0")
package dev.vantage.device.kit.emulation;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
