/**
 * The profiling API a user writes against: start a {@link dev.vantage.profiler.api.Profile} from the
 * {@link dev.vantage.profiler.api.Profiler} service, mark code with {@link dev.vantage.profiler.api.RecordFunction},
 * read events and key averages, export traces. It mirrors {@code torch.profiler} in Java idiom.
 */
@Export
@Version("3.2.0")
package dev.vantage.profiler.api;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
