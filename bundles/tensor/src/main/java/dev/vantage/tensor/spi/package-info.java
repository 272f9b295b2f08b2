/**
 * The backend SPI a device bundle implements: a {@link dev.vantage.tensor.spi.Backend} service registers kernels
 * per op for its dispatch key.
 */
@Export
@Version("1.0.0")
package dev.vantage.tensor.spi;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
