package dev.vantage.trace.engine;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.GZIPInputStream;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.vantage.profiler.memory.MemoryCategory;

/**
 * A memory timeline as torch's {@code export_memory_timeline} writes it to {@code .json} or {@code .json.gz}, and
 * Vantage's runs beside their traces: {@code [times, sizes]}, times in microseconds since the Unix epoch, each size a
 * leading 0 and then the bytes held in each of torch's categories ({@link MemoryCategory} order, {@code Unknown}
 * last) after that time. Read with Jackson's streaming parser; at most {@link #MAX_POINTS} points are kept, evenly
 * spaced, the last among them.
 */
public final class MemoryTimelineFile {

    /** The most points kept. */
    public static final int MAX_POINTS = MemoryEvents.MAX_POINTS;
    /** The largest file read. */
    public static final long MAX_BYTES = 512L << 20;

    private final List<String> categories;
    private final List<long[]> points;

    private MemoryTimelineFile(List<String> categories, List<long[]> points) {
        this.categories = categories;
        this.points = points;
    }

    /**
     * Reads a timeline.
     *
     * @throws IOException if the file cannot be read, is too large, or is not {@code [times, sizes]} of equal
     *     lengths with one size per category and the leading 0
     */
    public static MemoryTimelineFile read(Path file) throws IOException {
        long size = Files.size(file);
        if (size > MAX_BYTES) {
            throw new IOException("the timeline is " + (size >> 20) + " MiB, more than the " + (MAX_BYTES >> 20)
                    + " MiB read");
        }
        int width = MemoryCategory.values().length + 1;
        long[] times;
        List<long[]> sizes = new ArrayList<>();
        try (InputStream raw = Files.newInputStream(file);
                InputStream in = file.getFileName().toString().endsWith(".gz") ? new GZIPInputStream(raw) : raw;
                JsonParser p = new ObjectMapper().getFactory().createParser(in)) {
            expect(p, JsonToken.START_ARRAY);
            expect(p, JsonToken.START_ARRAY);
            long[] t = new long[1024];
            int n = 0;
            while (p.nextToken() == JsonToken.VALUE_NUMBER_INT) {
                t = n == t.length ? Arrays.copyOf(t, n * 2) : t;
                t[n++] = p.getLongValue();
            }
            times = Arrays.copyOf(t, n);
            expect(p, JsonToken.START_ARRAY);
            while (p.nextToken() == JsonToken.START_ARRAY) {
                long[] row = new long[width];
                int k = 0;
                while (p.nextToken() == JsonToken.VALUE_NUMBER_INT) {
                    if (k == width) {
                        throw new IOException("a size has more than " + width + " entries");
                    }
                    row[k++] = p.getLongValue();
                }
                if (k != width) {
                    throw new IOException("a size has " + k + " entries, not " + width);
                }
                sizes.add(row);
            }
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IOException("not a memory timeline: " + e.getOriginalMessage(), e);
        }
        if (times.length != sizes.size()) {
            throw new IOException(times.length + " times but " + sizes.size() + " sizes");
        }
        List<long[]> points = new ArrayList<>(times.length);
        for (int i = 0; i < times.length; i++) {
            long[] point = new long[width];
            point[0] = times[i] * 1_000L;
            System.arraycopy(sizes.get(i), 1, point, 1, width - 1);
            points.add(point);
        }
        List<String> names = Arrays.stream(MemoryCategory.values()).map(MemoryCategory::torchName).toList();
        return new MemoryTimelineFile(names, MemoryEvents.thin(points));
    }

    private static void expect(JsonParser p, JsonToken token) throws IOException {
        if (p.nextToken() != token) {
            throw new IOException("not a memory timeline: [times, sizes] expected, " + p.currentToken() + " found");
        }
    }

    /** torch's category names, in the order of {@link #points()}' columns. */
    public List<String> categories() {
        return categories;
    }

    /** The points: {time in epoch ns, bytes per category...}, in the file's order. */
    public List<long[]> points() {
        return points;
    }
}
