/**
 * The ${deviceType} driver interface, exported so that a native driver can be shipped as a bundle of its own.
 */
@Export
@Version("1.0.0")
package ${package}.driver;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
