package dev.vantage.board.internal.views;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.osgi.service.component.annotations.Component;

import dev.vantage.board.api.BoardRun;
import dev.vantage.board.api.BoardView;
import dev.vantage.board.api.ViewSection;
import dev.vantage.board.api.ViewSection.Column;
import dev.vantage.board.api.ViewSection.Unit;
import dev.vantage.trace.engine.summary.CollectiveStats;
import dev.vantage.trace.engine.summary.DeviceOverlap;

/**
 * A rank's communication, as the TensorBoard plugin's Distributed view shows it for one worker: device time split
 * into computation, overlapped and exposed communication and other, and the collectives' calls, sizes and times.
 */
@Component(service = BoardView.class)
public class CommunicationView implements BoardView {

    @Override
    public String id() {
        return "communication";
    }

    @Override
    public String title() {
        return "Communication";
    }

    @Override
    public int order() {
        return 50;
    }

    @Override
    public boolean appliesTo(BoardRun run) {
        return !run.summary().collectives().isEmpty();
    }

    @Override
    public List<ViewSection> render(BoardRun run) {
        DeviceOverlap o = run.summary().overlap();
        Map<String, Double> split = new LinkedHashMap<>();
        split.put("Computation", Charts.ms(o.computeNanos() - o.overlappedNanos()));
        split.put("Overlapped communication", Charts.ms(o.overlappedNanos()));
        split.put("Exposed communication", Charts.ms(o.exposedCommunicationNanos()));
        split.put("Other", Charts.ms(o.idleNanos()));
        List<List<Object>> rows = new ArrayList<>();
        for (CollectiveStats c : run.summary().collectives()) {
            rows.add(List.of(c.name(), c.calls(), c.sizedCalls() == 0 ? "" : (Object) c.bytes(), c.deviceNanos(),
                    c.deviceNanos() / Math.max(1, c.calls())));
        }
        return List.of(
                ViewSection.chart("overlap-chart", "Computation and communication", "Device time in milliseconds:"
                        + " communication while nothing computed is exposed.", Charts.pie("Device time", split)),
                ViewSection.table("collectives", "Collectives", "Sizes from the trace's message sizes where it"
                        + " gives them. Times in µs.", List.of(new Column("Collective", Unit.TEXT),
                        new Column("Calls", Unit.NUMBER), new Column("Total size", Unit.BYTES),
                        new Column("Device time", Unit.NANOS), new Column("Mean", Unit.NANOS)), rows));
    }
}
