package dev.vantage.board.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.Test;

import dev.vantage.cli.LocalPlatforms;

/** Live capture's answers, on an attach client that records what it was asked. */
public class LiveTest {

    private final List<String> asked = new ArrayList<>();

    private final LocalPlatforms client = new LocalPlatforms() {
        @Override
        public List<Platform> list() {
            return List.of(new Platform(4242, "full", "serve", "launcher.jar serve"));
        }

        @Override
        public String start(long pid, List<String> options) {
            if (pid == 7) {
                throw new Refused("no process 7", 1);
            }
            asked.add("start " + pid + " " + options);
            return "recording for 5000 ms";
        }

        @Override
        public String status(long pid) {
            return "idle";
        }

        @Override
        public String stop(long pid) {
            throw new Refused("no capture is recording", 1);
        }
    };

    private final Path logdir = Path.of("/logs");

    @Test
    public void listsThePlatformsAndStartsACaptureIntoTheLogDirectory() {
        Live live = new Live(() -> client, logdir);
        Live.Answer list = live.get("");
        assertEquals(200, list.status());
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> rows = (List<Map<String, Object>>) ((Map<?, ?>) list.body()).get("platforms");
        assertEquals(4242L, rows.get(0).get("pid"));
        Live.Answer started = live.post("/4242/start", "1", Map.of("seconds", "5"));
        assertEquals(200, started.status());
        assertEquals(1, asked.size());
        String options = asked.get(0);
        assertTrue(options, options.startsWith("start 4242 [duration=5000, dir=/logs/live, name=live-4242-"));
        // until stopped: no duration
        live.post("/4242/start", "1", Map.of());
        assertTrue(asked.get(1), asked.get(1).startsWith("start 4242 [dir=/logs/live, name=live-4242-"));
    }

    @Test
    public void refusesWhatItShouldBeforeAskingThePlatform() {
        Live live = new Live(() -> client, logdir);
        assertEquals("no header: another site's page", 403, live.post("/4242/start", null, Map.of()).status());
        assertEquals(403, live.post("/4242/start", "yes", Map.of()).status());
        assertEquals(422, live.post("/4242/start", "1", Map.of("seconds", "0")).status());
        assertEquals(422, live.post("/4242/start", "1", Map.of("seconds", "3601")).status());
        assertEquals(422, live.post("/4242/start", "1", Map.of("seconds", "5; rm")).status());
        assertEquals(404, live.post("/../4242/start", "1", Map.of()).status());
        assertEquals(404, live.post("/4242/kill", "1", Map.of()).status());
        assertEquals(List.of(), asked);
        // the platform's refusals, as vantage profile gives them
        Live.Answer stop = live.post("/4242/stop", "1", Map.of());
        assertEquals(409, stop.status());
        assertEquals(Map.of("error", "no capture is recording"), stop.body());
        assertEquals(409, live.post("/7/start", "1", Map.of()).status());
    }

    @Test
    public void aBoardWithoutTheAttachClientSaysSo() {
        Live live = new Live(() -> null, logdir);
        assertEquals(false, ((Map<?, ?>) live.get("/").body()).get("available"));
        assertEquals(409, live.post("/4242/start", "1", Map.of()).status());
    }
}
