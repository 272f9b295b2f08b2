package dev.vantage.board.internal;

import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.vantage.cli.LocalPlatforms;

/**
 * Live capture from the board, over the attach client of {@code vantage profile} (the launcher's, as the service
 * {@link LocalPlatforms}):
 * <ul>
 * <li>{@code GET /api/platforms}: this user's Vantage platforms but the board's own process, each with what its
 * on-demand profiler is doing;
 * <li>{@code GET /api/platforms/<pid>}: one of them;
 * <li>{@code POST /api/platforms/<pid>/start} with {@code seconds=N} or {@code steps=N} (neither: until stopped):
 * a capture written into the log directory's {@code live} folder, with its registry line, so that the run shows in
 * the list;
 * <li>{@code POST /api/platforms/<pid>/stop}.
 * </ul>
 * Every request here carries the header {@value #HEADER}: a page of another site can send it only after a CORS
 * preflight the board never answers, so no other site starts a capture, or has this user's processes attached to,
 * through the user's browser ({@link BoardContext} has checked the token or the loopback {@code Host} before). A
 * request whose {@code Origin} or {@code Sec-Fetch-Site} says another site is refused as well. Everything a request
 * says is checked before the client is asked anything; the answers are JSON, an error one line in {@code error}.
 */
final class Live {

    /** The header every request carries, with the value {@code 1}. */
    static final String HEADER = "X-Vantage-Board";
    /** The longest timed capture: an hour. */
    static final int MAX_SECONDS = 3600;
    /** The most steps a capture asks for. */
    static final int MAX_STEPS = 100_000;
    /** The log directory's folder the captures go to. */
    static final String FOLDER = "live";

    private static final Pattern PLATFORM = Pattern.compile("/([1-9]\\d{0,9})");
    private static final Pattern ACTION = Pattern.compile("/([1-9]\\d{0,9})/(start|stop)");
    private static final Pattern NUMBER = Pattern.compile("[1-9]\\d{0,5}");
    /** The parameters a request may carry besides its own: the access token, which {@link BoardContext} checked. */
    private static final Set<String> ANY = Set.of("token");

    /** An answer: its HTTP status and its JSON body. */
    record Answer(int status, Object body) {
    }

    /**
     * What a request carries that the checks read.
     *
     * @param path the path below {@code /api/platforms}, or null
     * @param header the value of {@value #HEADER}, or null
     * @param origin the {@code Origin} header, or null
     * @param fetchSite the {@code Sec-Fetch-Site} header, or null
     * @param host the {@code Host} header, or null
     * @param parameters the query's and form's parameters, each its first value
     */
    record Request(String path, String header, String origin, String fetchSite, String host,
            Map<String, String> parameters) {
    }

    private final Supplier<LocalPlatforms> platforms;
    private final Path captures;
    private final long self;

    /**
     * @param platforms the attach client, or a supplier of null when the platform has none (a board not started by
     *     the launcher)
     * @param logdir the board's log directory (absolute); captures go to its {@value #FOLDER} folder
     * @param self the board's own process id, never listed nor captured on
     */
    Live(Supplier<LocalPlatforms> platforms, Path logdir, long self) {
        this.platforms = platforms;
        this.captures = logdir.resolve(FOLDER);
        this.self = self;
    }

    /** {@code GET}: the platforms, or one. */
    Answer get(Request r) {
        Answer refused = refusal(r);
        if (refused != null) {
            return refused;
        }
        String path = r.path() == null ? "" : r.path();
        Matcher one = PLATFORM.matcher(path);
        boolean all = path.isEmpty() || path.equals("/");
        if (!all && !one.matches()) {
            return ACTION.matcher(path).matches() ? error(405, "start and stop are POST requests")
                    : error(404, "no such page: GET /api/platforms or /api/platforms/<pid>");
        }
        Answer unknown = onlyParameters(r.parameters(), Set.of());
        if (unknown != null) {
            return unknown;
        }
        long pid = all ? 0 : Long.parseLong(one.group(1));
        if (pid == self) {
            return error(404, "process " + pid + " is this board");
        }
        LocalPlatforms client = platforms.get();
        if (client == null) {
            if (all) {
                Map<String, Object> body = new LinkedHashMap<>();
                body.put("available", false);
                body.put("why", noClient());
                body.put("captures", captures.toString());
                body.put("platforms", List.of());
                return new Answer(200, body);
            }
            return error(503, noClient());
        }
        try {
            if (!all) {
                return new Answer(200, row(client.platform(pid)));
            }
            List<Object> rows = new ArrayList<>();
            for (LocalPlatforms.Platform p : client.list()) {
                if (p.pid() != self) {
                    rows.add(row(p));
                }
            }
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("available", true);
            body.put("captures", captures.toString());
            body.put("platforms", rows);
            return new Answer(200, body);
        } catch (LocalPlatforms.Refused e) {
            return error(404, e.getMessage());
        }
    }

    /** {@code POST}: starts or stops a platform's capture. */
    Answer post(Request r) {
        Answer refused = refusal(r);
        if (refused != null) {
            return refused;
        }
        Matcher m = ACTION.matcher(r.path() == null ? "" : r.path());
        if (!m.matches()) {
            return error(404, "no such page: POST /api/platforms/<pid>/start or /api/platforms/<pid>/stop");
        }
        long pid = Long.parseLong(m.group(1));
        boolean start = m.group(2).equals("start");
        Map<String, String> given = r.parameters();
        Answer unknown = onlyParameters(given, start ? Set.of("seconds", "steps") : Set.of());
        if (unknown != null) {
            return unknown;
        }
        List<String> options = new ArrayList<>();
        if (start) {
            String seconds = given.get("seconds");
            String steps = given.get("steps");
            if (seconds != null && steps != null) {
                return error(422, "seconds and steps exclude each other: give one, or neither to record until"
                        + " stopped");
            }
            if (seconds != null) {
                if (!NUMBER.matcher(seconds).matches() || Integer.parseInt(seconds) > MAX_SECONDS) {
                    return error(422, "seconds: a whole number from 1 to " + MAX_SECONDS + ", not '" + seconds
                            + "'");
                }
                options.add("duration=" + Integer.parseInt(seconds) * 1000L);
            }
            if (steps != null) {
                if (!NUMBER.matcher(steps).matches() || Integer.parseInt(steps) > MAX_STEPS) {
                    return error(422, "steps: a whole number from 1 to " + MAX_STEPS + ", not '" + steps + "'");
                }
                options.add("iterations=" + Integer.parseInt(steps));
            }
            // the platform names the capture (a name it claims in the folder, so no two captures share one)
            options.add("dir=" + captures);
        }
        if (pid == self) {
            return error(422, "process " + pid + " is this board; capture on another platform");
        }
        LocalPlatforms client = platforms.get();
        if (client == null) {
            return error(503, noClient());
        }
        try {
            String answer = start ? client.start(pid, options) : client.stop(pid);
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("pid", pid);
            body.put("answer", answer);
            return new Answer(200, body);
        } catch (LocalPlatforms.Refused e) {
            // 2: an option the platform found bad; 1: it refused (a capture already recording, none to stop) or
            // cannot be reached
            return error(e.exitCode == 2 ? 422 : 409, e.getMessage());
        }
    }

    /** Why a request is refused before its path is read, or null: no header, or another site's. */
    static Answer refusal(Request r) {
        if (!"1".equals(r.header())) {
            return error(403, "live capture answers only the board's page: a request carries the header " + HEADER
                    + ": 1");
        }
        String site = r.fetchSite() == null ? null : r.fetchSite().toLowerCase(Locale.ROOT);
        if (site != null && !site.equals("same-origin") && !site.equals("none")) {
            return error(403, "live capture answers only the board's page, not a request from another site ("
                    + "Sec-Fetch-Site: " + r.fetchSite() + ")");
        }
        if (r.origin() != null && !sameAuthority(r.origin(), r.host())) {
            return error(403, "live capture answers only the board's page, not one of " + r.origin());
        }
        return null;
    }

    /** Whether an {@code Origin} names the host and port the request was sent to. */
    private static boolean sameAuthority(String origin, String host) {
        try {
            String authority = URI.create(origin).getRawAuthority();
            return authority != null && host != null && authority.equalsIgnoreCase(host);
        } catch (IllegalArgumentException e) {
            return false;   // "null" (a sandboxed or file page) or no URI at all
        }
    }

    private static Answer onlyParameters(Map<String, String> given, Set<String> allowed) {
        for (String k : given.keySet()) {
            if (!allowed.contains(k) && !ANY.contains(k)) {
                return error(422, "unknown parameter '" + k + "'" + (allowed.isEmpty() ? "; this request takes none"
                        : "; it takes " + String.join(" or ", allowed.stream().sorted().toList())));
            }
        }
        return null;
    }

    private static Map<String, Object> row(LocalPlatforms.Platform p) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("pid", p.pid());
        row.put("distribution", p.distribution());
        row.put("mode", p.mode());
        row.put("capture", p.capture().word());
        row.put("command", p.command());
        return row;
    }

    private static String noClient() {
        return "this board has no attach client (it was not started by the vantage launcher)";
    }

    private static Answer error(int status, String message) {
        return new Answer(status, Map.of("error", message));
    }
}
