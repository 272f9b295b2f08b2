package dev.vantage.board.internal;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

import com.fasterxml.jackson.databind.ObjectMapper;

/** {@code /api/platforms}: live capture ({@link Live}) over HTTP, its answers in JSON, never an error page. */
final class LiveServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final transient Live live;

    LiveServlet(Live live) {
        this.live = live;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        answer(response, () -> live.get(request.getPathInfo()));
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Map<String, String> parameters = new LinkedHashMap<>();
        request.getParameterMap().forEach((k, v) -> {
            if (!k.equals("token") && v.length > 0) {
                parameters.put(k, v[0]);
            }
        });
        answer(response, () -> live.post(request.getPathInfo(), request.getHeader(Live.HEADER), parameters));
    }

    private interface Call {
        Live.Answer run();
    }

    private static void answer(HttpServletResponse response, Call call) throws IOException {
        response.setHeader("Cache-Control", "no-store");
        Live.Answer a;
        try {
            a = call.run();
        } catch (RuntimeException | LinkageError e) {
            a = new Live.Answer(500, Map.of("error", "the board could not answer: " + e));
        }
        response.setStatus(a.status());
        response.setContentType("application/json;charset=utf-8");
        JSON.writeValue(response.getOutputStream(), a.body());
    }
}
