package dev.vantage.analysis.trace;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.Random;

import org.junit.Test;

/**
 * The columns a big trace's events live in: the same values whether on the heap or in mapped chunks of the
 * store's file, across chunk boundaries; the hash map over them; sorting in place.
 */
public class ColumnStoreTest {

    private static final int N = ColumnStore.HEAD + 2 * ColumnStore.CHUNK + 123;

    /** The temporary directory's column files. */
    private static java.util.Set<String> columnFiles() throws java.io.IOException {
        try (java.util.stream.Stream<java.nio.file.Path> s = java.nio.file.Files.list(
                java.nio.file.Path.of(System.getProperty("java.io.tmpdir")))) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("vantage-columns-"))
                    .collect(java.util.stream.Collectors.toSet());
        }
    }

    @Test
    public void aStoreLeavesNoFileInTheTemporaryDirectoryEvenWhileItIsOpen() throws java.io.IOException {
        java.util.Set<String> before = columnFiles();
        try (ColumnStore store = new ColumnStore()) {
            LongColumn longs = new LongColumn(store);
            for (int i = 0; i < ColumnStore.HEAD + ColumnStore.CHUNK + 1; i++) {
                longs.add(i);
            }
            assertTrue("a chunk was mapped", store.mappedBytes() > 0);
            // a kill -9 now would leave whatever is in the directory: nothing of this store's
            assertEquals(before, columnFiles());
            assertEquals(ColumnStore.HEAD + ColumnStore.CHUNK, longs.get(ColumnStore.HEAD + ColumnStore.CHUNK));
        }
    }

    @Test
    public void columnsKeepTheirValuesAcrossHeapAndMappedChunks() {
        try (ColumnStore store = new ColumnStore()) {
            LongColumn longs = new LongColumn(store);
            IntColumn ints = new IntColumn(store);
            ByteColumn bytes = new ByteColumn(store);
            for (int i = 0; i < N; i++) {
                longs.add(i * 1_000_003L - 7);
                ints.add(i ^ 0x5a5a);
                bytes.add((byte) i);
            }
            assertTrue("chunks were mapped", store.mappedBytes() >= 2L * ColumnStore.CHUNK * (8 + 4 + 1));
            for (int i = 0; i < N; i++) {
                assertEquals(i * 1_000_003L - 7, longs.get(i));
                assertEquals(i ^ 0x5a5a, ints.get(i));
                assertEquals((byte) i, bytes.get(i));
            }
            longs.set(N - 1, 42);
            assertEquals(42, longs.get(N - 1));
        }
    }

    @Test
    public void theMapFindsEveryKeyWhenItLivesInTheStore() {
        try (ColumnStore store = new ColumnStore()) {
            LongLongMap map = new LongLongMap(store);
            Random r = new Random(7);
            long[] keys = new long[300_000];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = r.nextLong() >>> 1;
                map.add(keys[i], i);
                map.add(keys[i], 1);
            }
            for (int i = 0; i < keys.length; i++) {
                assertEquals(i + 1, map.get(keys[i], -1));
            }
            assertEquals(-1, map.get(-5, -1));
            assertTrue(store.mappedBytes() > 0);
        }
    }

    @Test
    public void sortsAndTakesThePercentileInPlace() {
        try (ColumnStore store = new ColumnStore()) {
            LongColumn c = new LongColumn(store);
            Random r = new Random(11);
            long[] copy = new long[N];
            for (int i = 0; i < N; i++) {
                copy[i] = r.nextInt(1_000_000);
                c.add(copy[i]);
            }
            java.util.Arrays.sort(copy);
            long p99 = copy[(int) Math.ceil(N * 0.99) - 1];
            assertEquals(p99, c.p99());
            for (int i = 0; i < N; i++) {
                assertEquals(copy[i], c.get(i));
            }
        }
    }
}
