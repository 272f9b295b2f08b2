package ${package}.internal;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.PriorityQueue;

import org.osgi.service.component.annotations.Component;

import dev.vantage.board.api.BoardRun;
import dev.vantage.board.api.BoardView;
import dev.vantage.board.api.ViewSection;
import dev.vantage.board.api.ViewSection.Choice;
import dev.vantage.board.api.ViewSection.Column;
import dev.vantage.board.api.ViewSection.Unit;
import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.Trace;
import dev.vantage.profiler.trace.TraceThread;

/**
 * ${viewTitle}: where a run's time went by kind of event (operators, annotations, kernels, copies, runtime
 * calls), as a chart and a table, and the run's longest events, of every kind or of one the user chooses. The
 * events are read from the trace engine's cursor one at a time ({@code BoardRun.read}), keeping only a sum per kind
 * and the longest hundred events ({@code LONGEST}), so a trace of any size is read in bounded memory and the page
 * receives only what it draws.
 *
 * <p>The board calls {@code render} on its HTTP threads, several runs at once: the view keeps no state.
 */
@Component(service = BoardView.class)
public class ${viewClass}View implements BoardView {

    /** The view's id, in the board's URLs. */
    public static final String ID = "${viewId}";

    /** How many of the longest events the view shows. */
    static final int LONGEST = 100;

    /** The parameter that chooses the kind of the longest events shown; {@code ALL} for every kind. */
    static final String KIND = "kind";

    /** The value of {@code KIND} for every kind. */
    static final String ALL = "all";

    @Override
    public String id() {
        return ID;
    }

    @Override
    public String title() {
        return "${viewTitle}";
    }

    @Override
    public int order() {
        // after the built-in views, which take 10 to 90
        return 100;
    }

    @Override
    public boolean appliesTo(BoardRun run) {
        // the summary is computed once per run and shared by every view: a cheap test
        return run.summary().events() > 0;
    }

    /** One event of the longest, as the table shows it. */
    record Event(long id, String name, EventKind kind, String where, long startNanos, long durationNanos) {

        List<Object> row() {
            return List.of(name, label(kind), where, startNanos, durationNanos);
        }
    }

    /** A kind's sums. */
    static final class Sums {
        long events;
        long nanos;
        long longestNanos;
    }

    /** What one pass over a trace's events leaves: the sums per kind and the longest events, longest first. */
    record Reading(Map<EventKind, Sums> kinds, List<Event> longest) {
    }

    /**
     * Reads every event of a trace once.
     *
     * @param only the kind of the longest events to keep, or null for every kind
     */
    static Reading read(Trace trace, EventKind only) {
        Map<Long, String> threads = new HashMap<>();
        for (TraceThread t : trace.threads()) {
            threads.put(t.id(), t.name());
        }
        Map<EventKind, Sums> kinds = new EnumMap<>(EventKind.class);
        // the shortest kept event on top, to be pushed out by a longer one; ties keep the earlier event
        Comparator<Event> order = Comparator.comparingLong(Event::durationNanos)
                .thenComparing(Comparator.comparingLong(Event::id).reversed());
        PriorityQueue<Event> longest = new PriorityQueue<>(order);
        long origin = trace.startEpochNanos();
        EventCursor e = trace.events();
        while (e.next()) {
            long nanos = e.durationNanos();
            Sums sums = kinds.computeIfAbsent(e.kind(), k -> new Sums());
            sums.events++;
            sums.nanos += nanos;
            sums.longestNanos = Math.max(sums.longestNanos, nanos);
            if (nanos <= 0 || (only != null && e.kind() != only)) {
                continue;
            }
            if (longest.size() == LONGEST && order.compare(longest.peek(), probe(e)) >= 0) {
                continue;
            }
            longest.add(new Event(e.eventId(), e.name(), e.kind(), where(e, threads), e.startEpochNanos() - origin,
                    nanos));
            if (longest.size() > LONGEST) {
                longest.poll();
            }
        }
        List<Event> sorted = new ArrayList<>(longest);
        sorted.sort(order.reversed());
        return new Reading(kinds, sorted);
    }

    /** An event with the cursor's duration and id only, to compare with the shortest kept. */
    private static Event probe(EventCursor e) {
        return new Event(e.eventId(), "", e.kind(), "", 0, e.durationNanos());
    }

    /** Where an event ran: a device's stream for device work, else its host thread's name. */
    private static String where(EventCursor e, Map<Long, String> threads) {
        if (e.kind().isDeviceWork()) {
            return e.deviceType() + ":" + e.deviceIndex() + " stream " + e.streamId();
        }
        String name = threads.get(e.threadId());
        return name == null || name.isEmpty() ? "thread " + e.threadId() : name;
    }

    /** A kind as the page shows it: cpu_op, user_annotation, kernel, ... */
    static String label(EventKind kind) {
        return kind.name().toLowerCase(Locale.ROOT);
    }

    @Override
    public List<ViewSection> render(BoardRun run) throws IOException {
        return render(run, Map.of());
    }

    @Override
    public List<ViewSection> render(BoardRun run, Map<String, String> parameters) throws IOException {
        String chosen = parameters.getOrDefault(KIND, ALL);
        EventKind only = null;
        for (EventKind k : EventKind.values()) {
            if (label(k).equals(chosen)) {
                only = k;
            }
        }
        EventKind kind = only;
        Reading reading = run.read(trace -> read(trace, kind));

        List<List<Object>> kindRows = new ArrayList<>();
        reading.kinds().entrySet().stream()
                .sorted(Comparator.comparingLong((Map.Entry<EventKind, Sums> s) -> s.getValue().nanos).reversed())
                .forEach(s -> kindRows.add(List.of(label(s.getKey()), s.getValue().events, s.getValue().nanos,
                        s.getValue().longestNanos)));
        List<List<String>> options = new ArrayList<>();
        options.add(List.of(ALL, "every kind"));
        reading.kinds().keySet().forEach(k -> options.add(List.of(label(k), label(k))));
        String selected = only == null ? ALL : label(only);

        List<ViewSection> sections = new ArrayList<>();
        sections.add(ViewSection.chart("time-by-kind", "Time by kind", "Each kind's events' durations summed, in µs:"
                + " an event inside another is counted in its own kind and again in its parent's.", chart(kindRows)));
        sections.add(ViewSection.table("kinds", "Kinds", "Every event of the run by kind (" + run.summary().steps()
                .size() + " profiler steps in the run).", List.of(new Column("Kind", Unit.TEXT),
                        new Column("Events", Unit.NUMBER), new Column("Total", Unit.NANOS),
                        new Column("Longest", Unit.NANOS)), kindRows));
        sections.add(ViewSection.choice("choose-kind", "Longest events of", null,
                new Choice(KIND, options, selected)));
        sections.add(ViewSection.table("longest", "Longest events", "The " + LONGEST + " longest events of "
                + (only == null ? "every kind" : "kind " + selected) + ", longest first; start from the trace's"
                + " start.", List.of(new Column("Name", Unit.TEXT), new Column("Kind", Unit.TEXT),
                        new Column("Where", Unit.TEXT), new Column("Start", Unit.NANOS),
                        new Column("Duration", Unit.NANOS)),
                reading.longest().stream().map(Event::row).toList()));
        return sections;
    }

    /** A bar per kind of its total time in µs: an Apache ECharts option, as maps and lists. */
    private static Map<String, Object> chart(List<List<Object>> kindRows) {
        Map<String, Object> chart = new LinkedHashMap<>();
        chart.put("tooltip", Map.of("trigger", "axis", "axisPointer", Map.of("type", "shadow")));
        chart.put("grid", Map.of("left", 140, "right", 30, "top", 20, "bottom", 30));
        chart.put("xAxis", Map.of("type", "value", "name", "µs"));
        chart.put("yAxis", Map.of("type", "category", "inverse", true, "data",
                kindRows.stream().map(r -> r.get(0)).toList()));
        chart.put("series", List.of(Map.of("name", "Total", "type", "bar", "data",
                kindRows.stream().map(r -> Math.round((Long) r.get(2) / 1000.0 * 1000) / 1000.0).toList())));
        return chart;
    }
}
