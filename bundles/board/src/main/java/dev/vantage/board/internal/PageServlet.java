package dev.vantage.board.internal;

import java.io.IOException;
import java.io.InputStream;
import java.util.Map;

import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/** The page and what it loads: the board's script and style and the chart library, all from this bundle. */
final class PageServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    private static final String ECHARTS = Answers.ECHARTS;

    private static final Map<String, String[]> FILES = Map.of(
            "/", new String[] {"index.html", "text/html;charset=utf-8"},
            "/static/board.js", new String[] {"board.js", "text/javascript;charset=utf-8"},
            "/static/board.css", new String[] {"board.css", "text/css;charset=utf-8"},
            "/static/echarts.min.js", new String[] {ECHARTS, "text/javascript;charset=utf-8"});

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String path = request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
        String[] file = FILES.get(path.isEmpty() ? "/" : path);
        if (file == null) {
            response.sendError(HttpServletResponse.SC_NOT_FOUND);
            return;
        }
        try (InputStream in = PageServlet.class.getResourceAsStream(file[0])) {
            if (in == null) {
                response.sendError(HttpServletResponse.SC_NOT_FOUND);
                return;
            }
            response.setContentType(file[1]);
            response.setHeader("Cache-Control", file[0].equals(ECHARTS) ? "max-age=86400" : "no-cache");
            in.transferTo(response.getOutputStream());
        }
    }
}
