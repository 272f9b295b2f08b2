/**
 * Optimizers in the style of {@code torch.optim}: {@link dev.vantage.tensor.optim.SGD} and
 * {@link dev.vantage.tensor.optim.Adam}, whose {@code step} and {@code zero_grad} appear in profiles as
 * {@code Optimizer.step#SGD.step} and {@code Optimizer.zero_grad#SGD.zero_grad}, as torch names them.
 */
@Export
@Version("1.1.0")
package dev.vantage.tensor.optim;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
