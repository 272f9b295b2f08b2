package dev.vantage.board.internal;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

import javax.servlet.ServletException;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

import com.fasterxml.jackson.databind.ObjectMapper;

/** {@code /api/platforms}: live capture ({@link Live}) over HTTP, its answers in JSON, never an error page. */
final class LiveServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;
    private static final ObjectMapper JSON = Answers.JSON;

    private final transient Live live;

    LiveServlet(Live live) {
        this.live = live;
    }

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response)
            throws IOException, ServletException {
        String method = request.getMethod();
        if (method.equals("GET") || method.equals("POST")) {
            super.service(request, response);
        } else {
            answer(response, () -> new Live.Answer(405, Map.of("error", "live capture answers GET and POST, not "
                    + method)));
        }
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        answer(response, () -> live.get(request(request)));
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        answer(response, () -> live.post(request(request)));
    }

    private static Live.Request request(HttpServletRequest request) {
        Map<String, String> parameters = new LinkedHashMap<>();
        request.getParameterMap().forEach((k, v) -> parameters.put(k, v.length > 0 ? v[0] : ""));
        return new Live.Request(request.getPathInfo(), request.getHeader(Live.HEADER), request.getHeader("Origin"),
                request.getHeader("Sec-Fetch-Site"), request.getHeader("Host"), parameters);
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
