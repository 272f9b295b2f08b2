package dev.vantage.board.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.Test;

import dev.vantage.cli.LocalPlatforms;
import dev.vantage.cli.LocalPlatforms.Capture;
import dev.vantage.cli.LocalPlatforms.Platform;

/** Live capture's answers, on an attach client that records what it was asked. */
public class LiveTest {

    private static final long BOARD = 99;
    private static final Path LOGDIR = Path.of("/logs");

    private final List<String> asked = new ArrayList<>();
    private Capture state = Capture.IDLE;

    private final LocalPlatforms client = new LocalPlatforms() {
        @Override
        public List<Platform> list() {
            asked.add("list");
            // the client leaves its own process out; the board's check does not rely on it
            return List.of(new Platform(4242, "full", "serve", "launcher.jar serve", state),
                    new Platform(BOARD, "full", "command", "launcher.jar board", Capture.IDLE));
        }

        @Override
        public Platform platform(long pid) {
            asked.add("platform " + pid);
            if (pid != 4242) {
                throw new Refused("no process " + pid, 1);
            }
            return list().get(0);
        }

        @Override
        public String start(long pid, List<String> options) {
            asked.add("start " + pid + " " + options);
            if (pid == 7) {
                throw new Refused("no process 7", 1);
            }
            if (options.contains("iterations=13")) {
                throw new Refused("the platform found something bad", 2);
            }
            state = Capture.RECORDING;
            return "capture recording";
        }

        @Override
        public String stop(long pid) {
            asked.add("stop " + pid);
            if (state == Capture.IDLE) {
                throw new Refused("no capture is running", 1);
            }
            state = Capture.IDLE;
            return "/logs/live/ondemand-4242-20261128-101010.trace.json.gz";
        }
    };

    private final Live live = new Live(() -> client, LOGDIR, BOARD);

    /** A request of the board's page: the header, no Origin (a same-origin GET), no parameter. */
    private static Live.Request page(String path) {
        return page(path, Map.of());
    }

    private static Live.Request page(String path, Map<String, String> parameters) {
        return new Live.Request(path, "1", null, null, "127.0.0.1:6006", parameters);
    }

    private static Object body(Live.Answer a, String key) {
        return ((Map<?, ?>) a.body()).get(key);
    }

    @Test
    public void listsThePlatformsWithTheirCaptureButNotTheBoardItself() {
        Live.Answer list = live.get(page(null));
        assertEquals(200, list.status());
        assertEquals(true, body(list, "available"));
        assertEquals("/logs/live", body(list, "captures"));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> rows = (List<Map<String, Object>>) body(list, "platforms");
        assertEquals(1, rows.size());
        assertEquals(Map.of("pid", 4242L, "distribution", "full", "mode", "serve", "capture", "idle", "command",
                "launcher.jar serve"), rows.get(0));
        assertEquals(200, live.get(page("/")).status());

        Live.Answer one = live.get(page("/4242"));
        assertEquals(200, one.status());
        assertEquals("idle", body(one, "capture"));
        assertEquals(404, live.get(page("/77")).status());
        assertEquals("no process 77", body(live.get(page("/77")), "error"));
    }

    @Test
    public void startsACaptureIntoTheLogDirectoryAndStopsIt() {
        Live.Answer started = live.post(page("/4242/start", Map.of("seconds", "5")));
        assertEquals(started.body().toString(), 200, started.status());
        assertEquals("capture recording", body(started, "answer"));
        assertEquals("start 4242 [duration=5000, dir=/logs/live]", asked.get(0));
        assertEquals("recording", body(live.get(page("/4242")), "capture"));

        Live.Answer stopped = live.post(page("/4242/stop"));
        assertEquals(200, stopped.status());
        assertTrue(body(stopped, "answer").toString().startsWith("/logs/live/"));
        // the platform's refusal, as vantage profile gives it, is one line
        Live.Answer again = live.post(page("/4242/stop"));
        assertEquals(409, again.status());
        assertEquals(Map.of("error", "no capture is running"), again.body());

        asked.clear();
        live.post(page("/4242/start", Map.of("steps", "3")));
        live.post(page("/4242/stop"));
        // until stopped: no window
        live.post(page("/4242/start", Map.of("token", "the board's")));
        assertEquals(List.of("start 4242 [iterations=3, dir=/logs/live]", "stop 4242", "start 4242 [dir=/logs/live]"),
                asked);
        assertEquals(422, live.post(page("/4242/start", Map.of("steps", "13"))).status());
        assertEquals(409, live.post(page("/7/start")).status());
    }

    @Test
    public void checksEveryRequestBeforeAskingThePlatform() {
        // another site's page: no header, or it says it comes from elsewhere
        assertEquals(403, live.post(new Live.Request("/4242/start", null, null, null, "127.0.0.1:6006",
                Map.of())).status());
        assertEquals(403, live.post(new Live.Request("/4242/start", "yes", null, null, "127.0.0.1:6006",
                Map.of())).status());
        assertEquals(403, live.get(new Live.Request("", null, null, null, "127.0.0.1:6006", Map.of())).status());
        assertEquals(403, live.post(new Live.Request("/4242/start", "1", "https://evil.example", null,
                "127.0.0.1:6006", Map.of())).status());
        assertEquals(403, live.post(new Live.Request("/4242/start", "1", "null", null, "127.0.0.1:6006",
                Map.of())).status());
        assertEquals(403, live.post(new Live.Request("/4242/start", "1", null, "cross-site", "127.0.0.1:6006",
                Map.of())).status());
        assertEquals(403, live.post(new Live.Request("/4242/start", "1", "http://127.0.0.1:6007", null,
                "127.0.0.1:6006", Map.of())).status());
        // bad windows, paths and parameters
        for (String seconds : List.of("0", "3601", "-1", "1.5", "5; rm", "05", "", "9999999")) {
            Live.Answer a = live.post(page("/4242/start", Map.of("seconds", seconds)));
            assertEquals(seconds, 422, a.status());
        }
        assertEquals(422, live.post(page("/4242/start", Map.of("steps", "100001"))).status());
        Map<String, String> both = new LinkedHashMap<>();
        both.put("seconds", "5");
        both.put("steps", "3");
        assertEquals(422, live.post(page("/4242/start", both)).status());
        assertEquals(422, live.post(page("/4242/start", Map.of("dir", "/etc"))).status());
        assertEquals(422, live.post(page("/4242/stop", Map.of("seconds", "5"))).status());
        assertEquals(422, live.get(page("", Map.of("pid", "1"))).status());
        assertEquals(404, live.post(page("/../4242/start")).status());
        assertEquals(404, live.post(page("/4242/kill")).status());
        assertEquals(404, live.post(page("/0/start")).status());
        assertEquals(404, live.post(page("/99999999999/start")).status());
        assertEquals(404, live.post(page("/4242")).status());
        assertEquals(405, live.get(page("/4242/start")).status());
        // the board's own process
        assertEquals(422, live.post(page("/" + BOARD + "/start")).status());
        assertEquals(404, live.get(page("/" + BOARD)).status());
        assertEquals(List.of(), asked);
    }

    @Test
    public void acceptsTheBoardsOwnPage() {
        assertNull(Live.refusal(new Live.Request("/", "1", "http://127.0.0.1:6006", "same-origin",
                "127.0.0.1:6006", Map.of())));
        assertNull(Live.refusal(new Live.Request("/", "1", "http://[::1]:6006", null, "[::1]:6006", Map.of())));
        assertNull(Live.refusal(new Live.Request("/", "1", "http://box.example:6006", null, "BOX.example:6006",
                Map.of())));
    }

    @Test
    public void aBoardWithoutTheAttachClientSaysSo() {
        Live none = new Live(() -> null, LOGDIR, BOARD);
        Live.Answer list = none.get(page(""));
        assertEquals(200, list.status());
        assertFalse((Boolean) body(list, "available"));
        assertEquals(List.of(), body(list, "platforms"));
        assertEquals(503, none.post(page("/4242/start")).status());
        assertEquals(503, none.get(page("/4242")).status());
    }
}
