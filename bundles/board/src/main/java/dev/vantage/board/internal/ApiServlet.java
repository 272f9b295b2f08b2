package dev.vantage.board.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

import com.fasterxml.jackson.databind.ObjectMapper;

import dev.vantage.board.api.BoardView;
import dev.vantage.trace.engine.summary.Comparison;

/**
 * The board's JSON: {@code /api/runs} (the listing), {@code /api/runs/<id>/views} (the views a run has),
 * {@code /api/runs/<id>/views/<view>} (a view's sections), {@code /api/runs/<id>/file} (the trace, to download and
 * open in Perfetto), {@code /api/compare?a=<id>&b=<id>} (two runs compared as {@code vantage compare} does). A run
 * that cannot be read answers 422 with its message; the rest of the board is unaffected.
 */
final class ApiServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;
    private static final ObjectMapper JSON = Answers.JSON;

    private final transient Runs runs;
    private final transient Supplier<List<BoardView>> views;

    ApiServlet(Runs runs, Supplier<List<BoardView>> views) {
        this.runs = runs;
        this.views = views;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setHeader("Cache-Control", "no-store");
        try {
            route(request, response);
        } catch (IOException | RuntimeException | LinkageError e) {
            // an answer in JSON, never the server's error page with a stack trace
            if (!response.isCommitted()) {
                response.reset();
                json(response, 500, Map.of("error", "the board could not answer: " + e));
            }
        }
    }

    private void route(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String path = request.getPathInfo() == null ? "" : request.getPathInfo();
        String[] parts = path.split("/", -1);
        // "", "runs", id, "views", view
        if (path.equals("/runs")) {
            json(response, 200, runs.listing());
        } else if (path.equals("/compare")) {
            compare(response, request.getParameter("a"), request.getParameter("b"));
        } else if (parts.length >= 3 && parts[1].equals("runs")) {
            Logdir.Found found = runs.find(parts[2]);
            if (found == null) {
                json(response, 404, Map.of("error", "no run " + parts[2] + " in the log directory"));
            } else if (parts.length == 4 && parts[3].equals("views")) {
                viewsOf(response, found);
            } else if (parts.length == 5 && parts[3].equals("views")) {
                view(response, found, parts[4], parameters(request));
            } else if (parts.length == 4 && parts[3].equals("file")) {
                file(response, found);
            } else {
                json(response, 404, Map.of("error", "no such page"));
            }
        } else {
            json(response, 404, Map.of("error", "no such page"));
        }
    }

    private void viewsOf(HttpServletResponse response, Logdir.Found found) throws IOException {
        AnalysedRun run = readOrRefuse(response, found);
        if (run != null) {
            json(response, 200, Answers.views(found.name(), run, views.get()));
        }
    }

    /** The run read, or null once a 422 with the reason was answered: a run that cannot be read is its own error. */
    private AnalysedRun readOrRefuse(HttpServletResponse response, Logdir.Found found) throws IOException {
        try {
            return runs.analysed(found);
        } catch (IOException e) {
            json(response, 422, Map.of("error", String.valueOf(e.getMessage())));
            return null;
        }
    }

    /** The request's parameters but the token, each its first value. */
    private static Map<String, String> parameters(HttpServletRequest request) {
        Map<String, String> out = new LinkedHashMap<>();
        request.getParameterMap().forEach((k, v) -> {
            if (!k.equals("token") && v.length > 0) {
                out.put(k, v[0]);
            }
        });
        return out;
    }

    private void view(HttpServletResponse response, Logdir.Found found, String id, Map<String, String> parameters)
            throws IOException {
        BoardView view = views.get().stream().filter(v -> v.id().equals(id)).findFirst().orElse(null);
        if (view == null) {
            json(response, 404, Map.of("error", "no view " + id + " (its bundle may have stopped)"));
            return;
        }
        AnalysedRun run = readOrRefuse(response, found);
        if (run == null) {
            return;
        }
        Map<String, Object> answer;
        try {
            answer = Answers.render(view, run, parameters);
        } catch (IOException | RuntimeException e) {
            json(response, 500, Map.of("error", "the view " + view.title() + " failed: " + e));
            return;
        }
        json(response, 200, answer);
    }

    private void compare(HttpServletResponse response, String a, String b) throws IOException {
        Logdir.Found fa = a == null ? null : runs.find(a);
        Logdir.Found fb = b == null ? null : runs.find(b);
        if (fa == null || fb == null) {
            json(response, 404, Map.of("error", "compare takes two runs of the log directory: ?a=<id>&b=<id>"));
            return;
        }
        AnalysedRun ra = readOrRefuse(response, fa);
        AnalysedRun rb = ra == null ? null : readOrRefuse(response, fb);
        if (rb == null) {
            return;
        }
        json(response, 200, Map.of("view", "compare", "title", "Compare " + fa.name() + " with " + fb.name(),
                "sections", CompareSections.of(Comparison.of(fa.name(), ra.summary(), fb.name(), rb.summary()))));
    }

    private void file(HttpServletResponse response, Logdir.Found found) throws IOException {
        Path file = found.file();
        // served only while it is still a regular file inside the directory (not a link put there since the walk)
        if (file == null || !Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)
                || !file.toRealPath().startsWith(runs.logdir().root().toRealPath())) {
            json(response, 404, Map.of("error", "the run has no trace file in the log directory"));
            return;
        }
        response.setContentType("application/octet-stream");
        response.setHeader("Content-Disposition", "attachment; filename=\""
                + file.getFileName().toString().replaceAll("[^A-Za-z0-9._-]", "_") + "\"");
        response.setContentLengthLong(Files.size(file));
        try (InputStream in = Files.newInputStream(file); OutputStream out = response.getOutputStream()) {
            in.transferTo(out);
        }
    }

    private static void json(HttpServletResponse response, int status, Object body) throws IOException {
        response.setStatus(status);
        response.setContentType("application/json;charset=utf-8");
        JSON.writeValue(response.getOutputStream(), body);
    }
}
