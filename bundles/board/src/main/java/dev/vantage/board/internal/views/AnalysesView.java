package dev.vantage.board.internal.views;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.osgi.service.component.annotations.Component;

import dev.vantage.board.api.BoardRun;
import dev.vantage.board.api.BoardView;
import dev.vantage.board.api.ViewSection;

/**
 * The trace engine's device analyses as {@code vantage analyze} prints them, with HTA's names and columns: the
 * temporal breakdown, idle time, launch and queue-length summaries, memory bandwidth and each step's critical path.
 */
@Component(service = BoardView.class)
public class AnalysesView implements BoardView {

    private static final Map<String, String> NOTES = Map.of(
            "temporal", "HTA's temporal breakdown: idle, compute and non-compute time of the devices, in µs and %.",
            "idle", "HTA's idle time by cause per stream: host wait, kernel wait and other, in µs.",
            "launch_summary", "Kernel launches: how many, short kernels and long launch delays (HTA's cut-offs).",
            "queue_length_summary", "Outstanding launches per stream (HTA's queue length).",
            "memory_bw_summary", "Copy and fill bandwidth, GB/s.",
            "critical_path_summary", "Each step's critical path (HTA's lightweight critical path): its length and"
                    + " how much of it is CPU, device or communication bound, in µs.");

    private static final List<String> ORDER = List.of("temporal", "idle", "launch_summary", "queue_length_summary",
            "memory_bw_summary", "critical_path_summary");

    @Override
    public String id() {
        return "analyses";
    }

    @Override
    public String title() {
        return "Device analyses";
    }

    @Override
    public int order() {
        return 60;
    }

    @Override
    public boolean appliesTo(BoardRun run) {
        return !run.summary().kernels().isEmpty();
    }

    @Override
    public List<ViewSection> render(BoardRun run) {
        List<ViewSection> sections = new ArrayList<>();
        for (String name : ORDER) {
            BoardRun.Table t = run.analysis(name);
            if (t != null && !t.rows().isEmpty()) {
                sections.add(ViewSection.of(t, NOTES.get(name)));
            } else if (t == null && name.equals("critical_path_summary")) {
                Charts.later(run, "critical-path-summary", "critical_path_summary").ifPresent(sections::add);
            }
        }
        return sections;
    }
}
