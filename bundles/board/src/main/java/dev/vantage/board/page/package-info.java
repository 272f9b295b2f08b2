/**
 * The board's views written into one self-contained page: {@link dev.vantage.board.page.BoardPage}, which
 * {@code vantage report} uses, so that its page and the board show a run with the same views, computed by the same
 * code and drawn by the same script.
 */
@Export
@Version("1.0.0")
package dev.vantage.board.page;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
