/**
 * The backend SPI a device bundle implements: a {@link dev.vantage.tensor.spi.Backend} service allocates its
 * device's memory and registers a {@link dev.vantage.tensor.spi.Kernel} per op of
 * {@link dev.vantage.tensor.spi.KernelOps} for its dispatch key. Ops it leaves out fall back to the CPU.
 */
@Export
@Version("3.3.0")
package dev.vantage.tensor.spi;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
