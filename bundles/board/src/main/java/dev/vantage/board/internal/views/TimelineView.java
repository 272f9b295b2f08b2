package dev.vantage.board.internal.views;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.osgi.service.component.annotations.Component;

import dev.vantage.board.api.BoardRun;
import dev.vantage.board.api.BoardView;
import dev.vantage.board.api.ViewSection;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.trace.engine.DeviceRows;
import dev.vantage.trace.engine.HostThread;
import dev.vantage.trace.engine.TraceData;
import dev.vantage.trace.engine.store.HostRows;
import dev.vantage.trace.engine.summary.StepStats;

/**
 * One step drawn in the page: the step's span, each host thread's events (a lane per nesting depth), and each device
 * stream's work,
 * with zoom and pan. The slowest step first; a choice shows any other. At most {@link #MAX_SLICES} slices are sent,
 * the longest; the whole file opens in Perfetto from the download link.
 */
@Component(service = BoardView.class)
public class TimelineView extends ChoiceView {

    /** The most slices one window sends to the page. */
    public static final int MAX_SLICES = 20_000;
    /** The deepest nesting level drawn on a lane of its own; deeper events share it. */
    static final int MAX_DEPTH = 12;

    @Override
    public String id() {
        return "timeline";
    }

    @Override
    public String title() {
        return "Timeline";
    }

    @Override
    public int order() {
        return 35;
    }

    @Override
    public List<ViewSection> render(BoardRun run, Map<String, String> parameters) throws IOException {
        List<StepStats> steps = run.summary().steps();
        StepStats step = Charts.step(steps, parameters.get("step"), Charts.SLOWEST);
        List<ViewSection> sections = new ArrayList<>();
        if (step != null) {
            sections.add(ViewSection.choice("step", "Step", "The slowest step is shown first.",
                    Charts.steps("step", steps, step)));
        }
        ViewSection.Timeline timeline = run.read(trace -> window(trace.data(), step));
        sections.add(ViewSection.timeline("timeline", step == null ? "The whole trace" : "ProfilerStep#" + step.step(),
                "Host threads (a lane per nesting depth) and device streams. Scroll to zoom, drag to pan; a slice's"
                        + " tooltip gives its name and time." + (timeline.totalSlices() > timeline.slices().size()
                        ? " The longest " + timeline.slices().size() + " of " + timeline.totalSlices() + " slices." : ""),
                timeline));
        return sections;
    }

    /** The slices of a step's window (its span, to the end of its device work), or of the whole trace. */
    static ViewSection.Timeline window(TraceData data, StepStats step) {
        long from = data.startNanos();
        long to = data.stopNanos();
        if (step != null) {
            for (var span : data.steps()) {
                if (span.number() == step.step()) {
                    from = span.startNanos();
                    to = Math.max(span.endNanos(), span.startNanos() + step.durationNanos());
                }
            }
        }
        Map<String, Integer> lanes = new LinkedHashMap<>();
        List<List<Object>> slices = new ArrayList<>();
        // the steps themselves, which the engine keeps apart from the threads' events
        for (var span : data.steps()) {
            if (span.endNanos() > from && span.startNanos() < to) {
                int at = lanes.computeIfAbsent("steps", k -> lanes.size());
                slices.add(slice(at, Math.max(0, span.startNanos() - from), Math.min(to, span.endNanos()) - from,
                        span.name(), EventKind.USER_ANNOTATION.category()));
            }
        }
        for (HostThread t : data.threads()) {
            HostRows rows = t.rows();
            for (int i = 0; i < rows.size() && rows.start(i) < to; i++) {
                if (rows.end(i) <= from || rows.end(i) <= rows.start(i)) {
                    continue;
                }
                int depth = Math.min(rows.depth(i), MAX_DEPTH);
                String lane = t.name() + " (" + t.threadId() + ")" + (depth == 0 ? "" : " · " + depth);
                int at = lanes.computeIfAbsent(lane, k -> lanes.size());
                slices.add(slice(at, Math.max(0, rows.start(i) - from), Math.min(to, rows.end(i)) - from,
                        data.name(rows.name(i)),
                        EventKind.ofId(rows.kind(i)).category()));
            }
        }
        DeviceRows device = data.device();
        for (int i = 0; i < device.size(); i++) {
            if (device.end(i) <= from || device.start(i) >= to || !device.kind(i).isDeviceWork()) {
                continue;
            }
            String lane = device.deviceType(i) + " " + device.deviceIndex(i) + " stream " + device.streamId(i);
            int at = lanes.computeIfAbsent(lane, k -> lanes.size());
            slices.add(slice(at, Math.max(0, device.start(i) - from), Math.min(to, device.end(i)) - from,
                    device.name(i),
                    device.kind(i).category()));
        }
        long total = slices.size();
        if (slices.size() > MAX_SLICES) {
            slices.sort(Comparator.comparingLong((List<Object> s) -> (Long) s.get(1) - (Long) s.get(2)));
            slices = new ArrayList<>(slices.subList(0, MAX_SLICES));
        }
        return new ViewSection.Timeline(new ArrayList<>(lanes.keySet()), slices, total);
    }

    private static List<Object> slice(int lane, long start, long end, String name, String kind) {
        List<Object> s = new ArrayList<>(5);
        s.add(lane);
        s.add(start);
        s.add(end);
        s.add(name);
        s.add(kind);
        return s;
    }
}
