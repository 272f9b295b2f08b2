/**
 * The board's plugin seam: a {@link dev.vantage.board.api.BoardView} registered as an OSGi service is a view of
 * {@code vantage board}, offered for every run it applies to, and goes away with its service. A view answers a run
 * ({@link dev.vantage.board.api.BoardRun}: its file, the trace engine's summary and analyses) with sections
 * ({@link dev.vantage.board.api.ViewSection}): tables the page sorts and filters, and charts it draws with the
 * chart library the board serves. A view writes no HTML or script of its own, so a vendor's view looks and behaves as
 * the built-in ones do, and text from a trace is always shown as text.
 */
@Export
@Version("1.1.0")
package dev.vantage.board.api;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
