/**
 * The contract every Vantage device bundle keeps, as a JUnit 4 suite a vendor extends for their own bundle:
 * {@link dev.vantage.device.contract.DeviceContract}.
 */
@Export
@Version("1.0.0")
package dev.vantage.device.contract;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
