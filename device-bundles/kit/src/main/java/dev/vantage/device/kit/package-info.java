/**
 * What a device bundle builds on to take part in profiles, following Kineto's activity-profiler contract: a
 * {@link dev.vantage.device.kit.TracingDriver} is the vendor library's tracing side (activity records with device
 * timestamps, external correlation, clock reads), and {@link dev.vantage.device.kit.DriverSession} turns one
 * profile's records into host-time {@link dev.vantage.profiler.spi.DeviceActivity device activities}, calibrating
 * the device clock ({@link dev.vantage.device.kit.ClockCalibration}), linking each kernel to the host op that
 * launched it and counting what it could not keep.
 */
@Export
@Version("2.0.0")
package dev.vantage.device.kit;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
