package dev.vantage.board.api;

import java.io.IOException;
import java.util.List;
import java.util.Map;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * One view of the board, such as Overview or Kernels: registered as an OSGi service (with Declarative Services,
 * {@code @Component(service = BoardView.class)}), it appears in the board's tab bar of every run it
 * {@link #appliesTo applies to}; when its bundle stops, it goes. The board calls {@link #render} on its HTTP threads,
 * several runs at once, so a view keeps no state per run.
 */
@ConsumerType
public interface BoardView {

    /** The view's id, in its URL: lower-case letters, digits and {@code -}, unique among the views. */
    String id();

    /** The tab's title. */
    String title();

    /** Where its tab goes: lower first. The built-in views take 10 to 90 in steps of 10. */
    default int order() {
        return 100;
    }

    /** Returns whether the view has something to show for a run; it is offered only for those. */
    default boolean appliesTo(BoardRun run) {
        return true;
    }

    /**
     * Renders the view of a run.
     *
     * @return the sections, top to bottom
     * @throws IOException if a file the view reads cannot be read; the board shows the message in the view
     */
    List<ViewSection> render(BoardRun run) throws IOException;

    /**
     * Renders the view of a run with the parameters the page sent: those of a section's
     * {@link ViewSection.Choice}, when the user chose another value. By default, {@link #render(BoardRun)}.
     *
     * @param parameters by name; never the access token
     */
    default List<ViewSection> render(BoardRun run, Map<String, String> parameters) throws IOException {
        return render(run);
    }
}
