/**
 * The writers of trace formats that more than one part of Vantage writes: Kineto's Chrome trace JSON
 * ({@link dev.vantage.trace.engine.write.KinetoJsonWriter}), which the chrome and tensorboard exporters write with.
 */
@Export
@Version("1.0.0")
package dev.vantage.trace.engine.write;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
