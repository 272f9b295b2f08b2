/**
 * The engine's columnar event store: one {@link dev.vantage.trace.engine.store.Column} implementation on the heap,
 * off it or in a mapped file ({@link dev.vantage.trace.engine.store.BlockSource}), one thread's host event rows
 * ({@link dev.vantage.trace.engine.store.HostRows}) and the encoding of the details events carry
 * ({@link dev.vantage.trace.engine.store.Details}). The recorder writes into these structures directly; readers
 * append to them.
 */
@Export
@Version("1.0.0")
package dev.vantage.trace.engine.store;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
