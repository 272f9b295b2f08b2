package dev.vantage.board.internal;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.vantage.cli.LocalPlatforms;

/**
 * Live capture from the board: {@code GET /api/platforms} lists the Vantage platforms of this machine's user that
 * on-demand capture reaches (the launcher's attach client, {@code vantage profile}'s), {@code POST
 * /api/platforms/<pid>/start?seconds=N} starts a capture on one, written into the log directory's {@code live}
 * folder so that the run shows in the list, {@code POST .../stop} stops it. A request that changes something must
 * carry the header {@value #HEADER}: a page of another site cannot send it without the board's consent, which it never
 * gives, so no other page can start a capture through the user's browser.
 */
final class Live {

    /** The header every POST must carry, with the value {@code 1}. */
    static final String HEADER = "X-Vantage-Board";
    /** The longest capture the page starts: an hour. */
    static final int MAX_SECONDS = 3600;

    private static final Pattern ACTION = Pattern.compile("/(\\d{1,10})/(start|stop|status)");
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");

    /** An answer: its HTTP status and its JSON body. */
    record Answer(int status, Object body) {
    }

    private final Supplier<LocalPlatforms> platforms;
    private final Path captures;

    /**
     * @param platforms the attach client, or a supplier of null when the platform has none (a board not started by
     *     the launcher)
     * @param logdir the board's log directory; captures go to its {@code live} folder
     */
    Live(Supplier<LocalPlatforms> platforms, Path logdir) {
        this.platforms = platforms;
        this.captures = logdir.resolve("live");
    }

    /** {@code GET}: the platforms. */
    Answer get(String path) {
        if (!(path == null || path.isEmpty() || path.equals("/"))) {
            return error(404, "no such page");
        }
        LocalPlatforms client = platforms.get();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("captures", captures.toString());
        if (client == null) {
            body.put("available", false);
            body.put("why", "this board has no attach client (it was not started by the vantage launcher)");
            body.put("platforms", List.of());
            return new Answer(200, body);
        }
        List<Object> rows = new ArrayList<>();
        for (LocalPlatforms.Platform p : client.list()) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("pid", p.pid());
            row.put("distribution", p.distribution());
            row.put("mode", p.mode());
            row.put("command", p.command());
            rows.add(row);
        }
        body.put("available", true);
        body.put("platforms", rows);
        return new Answer(200, body);
    }

    /** {@code POST}: start, stop or ask the state of a platform's capture. */
    Answer post(String path, String header, Map<String, String> parameters) {
        if (!"1".equals(header)) {
            return error(403, "a request that starts or stops a capture carries the header " + HEADER + ": 1");
        }
        Matcher m = ACTION.matcher(path == null ? "" : path);
        if (!m.matches()) {
            return error(404, "no such page: POST /api/platforms/<pid>/start, stop or status");
        }
        long pid = Long.parseLong(m.group(1));
        LocalPlatforms client = platforms.get();
        if (client == null) {
            return error(409, "this board has no attach client (it was not started by the vantage launcher)");
        }
        try {
            String answer = switch (m.group(2)) {
                case "start" -> {
                    List<String> options = new ArrayList<>();
                    String seconds = parameters.get("seconds");
                    if (seconds != null && !seconds.isEmpty()) {
                        if (!seconds.matches("\\d{1,4}") || Integer.parseInt(seconds) < 1
                                || Integer.parseInt(seconds) > MAX_SECONDS) {
                            yield null;
                        }
                        options.add("duration=" + Integer.parseInt(seconds) * 1000L);
                    }
                    options.add("dir=" + captures);
                    options.add("name=live-" + pid + "-" + STAMP.format(LocalDateTime.now()));
                    yield client.start(pid, options);
                }
                case "stop" -> client.stop(pid);
                default -> client.status(pid);
            };
            if (answer == null) {
                return error(422, "seconds: a whole number from 1 to " + MAX_SECONDS + ", or none to record until"
                        + " stopped");
            }
            return new Answer(200, Map.of("pid", pid, "answer", answer));
        } catch (LocalPlatforms.Refused e) {
            return error(e.exitCode == 2 ? 422 : 409, e.getMessage());
        }
    }

    private static Answer error(int status, String message) {
        return new Answer(status, Map.of("error", message));
    }
}
