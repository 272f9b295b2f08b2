/**
 * The CPU backend outside a framework, for tests of other device bundles: {@link dev.vantage.device.cpu.host.CpuHost}.
 */
@Export
@Version("1.0.0")
package dev.vantage.device.cpu.host;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
