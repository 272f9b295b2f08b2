/**
 * Workloads: runnable models registered as {@link dev.vantage.tensor.workload.Workload} services, run by
 * {@code vantage run <name>}.
 */
@Export
@Version("1.5.0")
package dev.vantage.tensor.workload;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
