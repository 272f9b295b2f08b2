package dev.vantage.board.internal.views;

import java.util.Comparator;
import java.util.List;

import dev.vantage.board.api.BoardView;

/**
 * The board's own views, for a page drawn without the platform ({@code vantage report}): the same classes the
 * platform registers as services (each is a component of this package), in their order.
 */
public final class BuiltInViews {

    private BuiltInViews() {
    }

    /** A new instance of each built-in view, by {@link BoardView#order()}. */
    public static List<BoardView> all() {
        return List.<BoardView>of(new OverviewView(), new OperatorsView(), new KernelsView(), new TimelineView(),
                new StepsView(), new MemoryView(), new DistributedView(), new CommunicationView(),
                new AnalysesView()).stream().sorted(Comparator.comparingInt(BoardView::order)).toList();
    }
}
