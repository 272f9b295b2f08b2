/**
 * Tensors, devices and dispatch keys of the Vantage eager runtime; ops on {@link dev.vantage.tensor.Tensor} go
 * through the dispatcher, which calls the profiler's dispatch hooks.
 */
@Export
@Version("2.3.0")
package dev.vantage.tensor;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
