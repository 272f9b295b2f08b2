/**
 * Neural-network modules in the style of {@code torch.nn}: {@link dev.vantage.tensor.nn.Module} with named
 * parameters and submodules, and the layers the workloads need.
 */
@Export
@Version("1.1.0")
package dev.vantage.tensor.nn;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
