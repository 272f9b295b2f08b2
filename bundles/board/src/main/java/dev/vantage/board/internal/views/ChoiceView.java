package dev.vantage.board.internal.views;

import java.io.IOException;
import java.util.List;
import java.util.Map;

import dev.vantage.board.api.BoardRun;
import dev.vantage.board.api.BoardView;
import dev.vantage.board.api.ViewSection;

/**
 * A built-in view with a {@link ViewSection.Choice}: it renders from the page's parameters, and a run rendered
 * without any is rendered with none chosen, so with the view's defaults.
 */
abstract class ChoiceView implements BoardView {

    @Override
    public final List<ViewSection> render(BoardRun run) throws IOException {
        return render(run, Map.of());
    }

    @Override
    public abstract List<ViewSection> render(BoardRun run, Map<String, String> parameters) throws IOException;
}
