/**
 * The contract every Vantage device bundle keeps, as JUnit 4 suites a vendor extends for their own bundle:
 * {@link dev.vantage.device.contract.DeviceContract} for a tensor device, and
 * {@link dev.vantage.device.contract.ActivitySourceContract} for the profiling session of any device, tensor backend
 * or not (since 1.1).
 */
@Export
@Version("1.1.0")
package dev.vantage.device.contract;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
