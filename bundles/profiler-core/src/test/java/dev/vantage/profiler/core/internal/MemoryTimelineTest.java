package dev.vantage.profiler.core.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;

import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.api.Schedule;
import dev.vantage.profiler.memory.MemoryCategory;
import dev.vantage.profiler.memory.MemoryEvents;
import dev.vantage.profiler.memory.MemoryScope;
import dev.vantage.profiler.spi.MemoryAllocator;
import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;

/** exportMemoryTimeline: torch's memory timeline files, from [memory] events and the runtime's categories. */
public class MemoryTimelineTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Index of a category in a {@code sizes} entry: torch's leading 0, then the categories in order. */
    private static final int PARAMETER = 1 + MemoryCategory.PARAMETER.ordinal();
    private static final int ACTIVATION = 1 + MemoryCategory.ACTIVATION.ordinal();
    private static final int GRADIENT = 1 + MemoryCategory.GRADIENT.ordinal();
    private static final int UNKNOWN = 1 + MemoryCategory.UNKNOWN.ordinal();

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private ProfilerComponent profiler;
    private long total;

    private final MemoryAllocator allocator = TestProfiler.allocator("npu:0");

    @Before
    public void activate() {
        profiler = TestProfiler.activate(1_000_000);
        profiler.addAllocator(allocator);
    }

    @After
    public void deactivate() {
        profiler.deactivate();
    }

    /** Reports an allocation or free on npu:0 as the allocator would, under a category. */
    private void npu(MemoryCategory category, long address, long bytes) throws InterruptedException {
        total += bytes;
        try (MemoryScope scope = MemoryScope.enter(category)) {
            MemoryEvents.allocated("npu", 0, address, bytes, total, 4 << 20);
        }
        Thread.sleep(1);   // a point of its own: the JSON's times are whole microseconds
    }

    private Profile recordTrainingLikeMemory() throws InterruptedException {
        Profile p = profiler.profile().profileMemory(true).start();
        npu(MemoryCategory.PARAMETER, 0x100, 1000);
        npu(MemoryCategory.ACTIVATION, 0x200, 500);
        npu(MemoryCategory.TEMPORARY, 0x300, 300);
        MemoryEvents.allocated("cpu", -1, 0x900, 64, 64, 64);   // another device: not in npu's timeline
        // freed under another category: the bytes leave the category the block was allocated in
        npu(MemoryCategory.GRADIENT, 0x200, -500);
        // a backward output that became a gradient: a gradient for its whole life
        MemoryEvents.categorize("npu", 0, 0x300, MemoryCategory.GRADIENT);
        npu(MemoryCategory.ACTIVATION, 0x400, 200);
        p.stop();
        return p;
    }

    private static JsonNode read(Path file) throws IOException {
        try (InputStream in = file.toString().endsWith(".gz") ? new GZIPInputStream(Files.newInputStream(file))
                : Files.newInputStream(file)) {
            return JSON.readTree(in);
        }
    }

    @Test
    public void attributesCategoriesAndFreesSubtractFromTheAllocatingCategory() throws Exception {
        Profile p = recordTrainingLikeMemory();
        Path file = tmp.getRoot().toPath().resolve("timeline.json");
        p.exportMemoryTimeline(file, "npu:0");

        JsonNode root = read(file);
        assertEquals(2, root.size());
        JsonNode times = root.get(0);
        JsonNode sizes = root.get(1);
        assertEquals(5, times.size());
        assertEquals(5, sizes.size());
        for (JsonNode point : sizes) {
            assertEquals(9, point.size());
            assertEquals(0, point.get(0).asLong());
        }
        for (int i = 1; i < times.size(); i++) {
            assertTrue(times.get(i).asLong() > times.get(i - 1).asLong());
        }
        // microseconds since the epoch, as torch writes them
        long nowMicros = System.currentTimeMillis() * 1000;
        assertTrue(Math.abs(times.get(0).asLong() - nowMicros) < 60_000_000L);

        assertEquals(1000, sizes.get(0).get(PARAMETER).asLong());
        assertEquals(500, sizes.get(1).get(ACTIVATION).asLong());
        // the temporary that became a gradient counts as one from its allocation on
        assertEquals(300, sizes.get(2).get(GRADIENT).asLong());
        assertEquals(0, sizes.get(2).get(1 + MemoryCategory.TEMPORARY.ordinal()).asLong());
        assertEquals(0, sizes.get(3).get(ACTIVATION).asLong());
        assertEquals(300, sizes.get(3).get(GRADIENT).asLong());
        JsonNode last = sizes.get(4);
        assertEquals(List.of(0L, 1000L, 0L, 0L, 0L, 200L, 300L, 0L, 0L), longs(last));
    }

    @Test
    public void sizesAtEachTimestampAddUpToTheRunningTotalAllocated() throws Exception {
        Profile p = recordTrainingLikeMemory();
        Path file = tmp.getRoot().toPath().resolve("timeline.json");
        p.exportMemoryTimeline(file, null);   // the first accelerator with memory events: npu:0

        // the trace's npu [memory] events, in time order, with their categories as the Chrome trace carries them
        List<long[]> events = new ArrayList<>();
        List<String> categories = new ArrayList<>();
        EventCursor c = p.trace().events();
        while (c.next()) {
            if (c.kind() == EventKind.MEMORY && c.deviceType().equals("npu")) {
                events.add(new long[] {c.startEpochNanos() / 1000, c.memoryTotalAllocated()});
                categories.add(c.memoryCategory());
            }
        }
        assertEquals(List.of("PARAMETER", "ACTIVATION", "TEMPORARY", "GRADIENT", "ACTIVATION"), categories);
        events.sort((a, b) -> Long.compare(a[0], b[0]));
        JsonNode root = read(file);
        int point = -1;
        long lastTime = Long.MIN_VALUE;
        for (long[] e : events) {
            if (e[0] != lastTime) {
                point++;
                lastTime = e[0];
                assertEquals(e[0], root.get(0).get(point).asLong());
            }
            long sum = 0;
            for (long v : longs(root.get(1).get(point))) {
                sum += v;
            }
            // the last event of a timestamp decides; earlier ones of the same microsecond are overwritten below
            if (events.indexOf(e) == events.size() - 1 || events.get(events.indexOf(e) + 1)[0] != e[0]) {
                assertEquals(e[1], sum);
            }
        }
        assertEquals(root.get(0).size(), point + 1);
    }

    @Test
    public void blocksAllocatedDuringWarmupKeepTheirCategoryAsPreexistingMemory() throws Exception {
        Profile p = profiler.profile().profileMemory(true).schedule(Schedule.of(0, 1, 1, 1, 0)).start();
        total = 4096;   // held before the profile began: unknown
        npu(MemoryCategory.PARAMETER, 0x100, 1000);   // warm-up step: not recorded, but known
        p.step();
        npu(MemoryCategory.ACTIVATION, 0x200, 500);
        npu(MemoryCategory.TEMPORARY, 0x100, -1000);
        p.step();
        p.stop();
        Path raw = tmp.getRoot().toPath().resolve("timeline.raw.json.gz");
        p.exportMemoryTimeline(raw, "npu");

        JsonNode rows = read(raw);
        assertEquals(List.of(-1L, 1L, 1000L, (long) MemoryCategory.PARAMETER.ordinal()), longs(rows.get(0)));
        assertEquals(List.of(-1L, 1L, 4096L, (long) MemoryCategory.UNKNOWN.ordinal()), longs(rows.get(1)));
        assertEquals(List.of(2L, 500L, (long) MemoryCategory.ACTIVATION.ordinal()), longs(rows.get(2)).subList(1, 4));
        // the free of the pre-existing parameter leaves the parameters
        assertEquals(List.of(4L, -1000L, (long) MemoryCategory.PARAMETER.ordinal()), longs(rows.get(3)).subList(1, 4));
        assertEquals(4, rows.size());

        Path json = tmp.getRoot().toPath().resolve("timeline.json.gz");
        p.exportMemoryTimeline(json, "npu:0");
        JsonNode sizes = read(json).get(1);
        assertEquals(1000, sizes.get(0).get(PARAMETER).asLong());
        assertEquals(4096, sizes.get(0).get(UNKNOWN).asLong());
        assertEquals(0, sizes.get(1).get(PARAMETER).asLong());
        assertEquals(4096 + 500, longs(sizes.get(1)).stream().mapToLong(Long::longValue).sum());
    }

    @Test
    public void writesASelfContainedPageWithTheTimelineAsDataAndTheChartLibraryInlined() throws Exception {
        Profile p = recordTrainingLikeMemory();
        Path page = tmp.getRoot().toPath().resolve("timeline.html");
        p.exportMemoryTimeline(page, "npu:0");
        String html = Files.readString(page, StandardCharsets.UTF_8);
        // the chart is drawn in the browser by the library report uses, inlined: nothing is fetched
        assertTrue(html.contains("echarts.init("));
        assertFalse(html.contains("src=\"http") || html.contains("href=\"http"));
        assertTrue(html.contains("'Time (ms)'"));
        assertTrue(html.contains("'Memory (MiB)'"));
        java.util.regex.Matcher data = java.util.regex.Pattern.compile(
                "<script type=\"application/json\" id=\"vantage-memory-timeline\">(.*?)</script>",
                java.util.regex.Pattern.DOTALL).matcher(html);
        assertTrue("the timeline is embedded as JSON", data.find());
        JsonNode d = JSON.readTree(data.group(1));
        assertEquals("npu:0", d.get("device").asText());
        List<String> names = new ArrayList<>();
        d.get("categories").forEach(c -> names.add(c.get("name").asText()));
        for (MemoryCategory c : MemoryCategory.values()) {
            assertTrue(c.torchName(), names.contains(c.torchName()));
        }
        assertEquals(d.get("timesMs").size(), d.get("reservedMib").size());
        try (var files = Files.list(tmp.getRoot().toPath())) {
            assertEquals("no temporary file left", 1, files.count());
        }
    }

    @Test
    public void refusesUnknownFormatsMalformedDevicesAndProfilesWithoutMemory() throws Exception {
        Profile p = recordTrainingLikeMemory();
        Path dir = tmp.getRoot().toPath();
        IllegalArgumentException format = assertThrows(IllegalArgumentException.class,
                () -> p.exportMemoryTimeline(dir.resolve("timeline.txt"), "npu:0"));
        assertTrue(format.getMessage(), format.getMessage().contains("'timeline.txt'"));
        IllegalArgumentException device = assertThrows(IllegalArgumentException.class,
                () -> p.exportMemoryTimeline(dir.resolve("timeline.json"), "NPU 0"));
        assertTrue(device.getMessage(), device.getMessage().contains("'NPU 0'"));

        Profile cpuOnly = profiler.profile().start();
        cpuOnly.stop();
        assertThrows(IllegalStateException.class, () -> cpuOnly.exportMemoryTimeline(dir.resolve("t.json"), null));
    }

    private static List<Long> longs(JsonNode array) {
        List<Long> list = new ArrayList<>();
        array.forEach(n -> list.add(n.asLong()));
        return list;
    }
}
