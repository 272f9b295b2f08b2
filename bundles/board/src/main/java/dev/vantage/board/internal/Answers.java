package dev.vantage.board.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;

import dev.vantage.board.api.BoardRun;
import dev.vantage.board.api.BoardView;
import dev.vantage.board.api.ViewSection;

/**
 * The bodies of the board's JSON answers, one definition for the HTTP API ({@link ApiServlet}) and for the page
 * {@code vantage report} writes ({@link dev.vantage.board.page.BoardPage}), so that the page's script reads both alike.
 */
public final class Answers {

    /** The chart library, where its WebJar has it (bnd.bnd copies it into the bundle). */
    public static final String ECHARTS = "/META-INF/resources/webjars/echarts/5.3.1/dist/echarts.min.js";

    /**
     * Writes the answers with every object's keys in order, so that a page written twice from the same traces is the
     * same file: views build their objects with {@code Map.of}, and records have derived properties
     * ({@code OpStats.isOperator}), whose orders change from one JVM to the next.
     */
    public static final ObjectMapper JSON = JsonMapper.builder()
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            .enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
            .disable(MapperFeature.SORT_CREATOR_PROPERTIES_FIRST).build();

    private Answers() {
    }

    /** A failure the page shows in place of what was asked for. */
    public static Map<String, Object> error(String message) {
        return Map.of("error", String.valueOf(message));
    }

    /** Whether a view applies; a view that fails to decide is offered, and shows its failure when opened. */
    public static boolean applies(BoardView view, BoardRun run) {
        try {
            return view.appliesTo(run);
        } catch (RuntimeException e) {
            return true;
        }
    }

    /** {@code /api/runs/<id>/views}: the views that apply to the run, in the order given. */
    public static Map<String, Object> views(String runName, BoardRun run, List<BoardView> views) {
        List<Object> out = new ArrayList<>();
        for (BoardView v : views) {
            if (applies(v, run)) {
                out.add(Map.of("id", v.id(), "title", v.title()));
            }
        }
        return Map.of("run", runName, "views", out);
    }

    /**
     * {@code /api/runs/<id>/views/<view>} of a run: the view rendered, pending when it showed an analysis as still
     * being computed ({@link AskedRun}).
     *
     * @throws java.io.IOException if the view cannot read what it needs
     */
    static Map<String, Object> render(BoardView view, BoardRun run, Map<String, String> parameters)
            throws java.io.IOException {
        AskedRun asked = new AskedRun(run);
        List<ViewSection> sections = view.render(asked, parameters);
        return view(view, sections, asked.waited());
    }

    /**
     * {@code /api/runs/<id>/views/<view>}: a view's sections, and {@code pending: true} while an analysis it shows is
     * still being computed (the page asks again).
     */
    public static Map<String, Object> view(BoardView view, List<ViewSection> sections, boolean pending) {
        return pending ? Map.of("view", view.id(), "title", view.title(), "sections", sections, "pending", true)
                : Map.of("view", view.id(), "title", view.title(), "sections", sections);
    }

    /** One row of {@code /api/runs}. */
    public static Map<String, Object> run(String id, String name, Map<String, String> tags, long bytes,
            long modifiedMillis, String status, String problem) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", id);
        row.put("name", name);
        row.put("tags", tags);
        row.put("bytes", bytes);
        row.put("modifiedMillis", modifiedMillis);
        row.put("status", status);
        row.put("problem", problem);
        return row;
    }
}
