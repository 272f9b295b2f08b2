package dev.vantage.board.internal;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class RunsTest {

    /** HTA's nanosecond trace, from the trace engine's test data. */
    static final String NS_TRACE = "/dev/vantage/trace/engine/device/hta/ns_resolution/"
            + "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz";
    /** The TensorBoard plugin's advice trace (a memory curve, Tensor Core kernels). */
    static final String ADVICE_TRACE = "/dev/vantage/trace/engine/device/plugin/advice.pt.trace.json";

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    static Path copy(String resource, Path to) throws IOException {
        Files.createDirectories(to.getParent());
        try (InputStream in = RunsTest.class.getResourceAsStream(resource)) {
            assertNotNull(resource, in);
            Files.copy(in, to);
        }
        return to;
    }

    @Test
    public void aRunWrittenLaterAppearsOnTheWalkAfterTheRescanInterval() throws Exception {
        Path root = tmp.newFolder("logs").toPath();
        copy(ADVICE_TRACE, root.resolve("first.pt.trace.json"));
        AtomicLong now = new AtomicLong(1_000_000);
        Runs runs = new Runs(new Logdir(root), 8, now::get);
        assertEquals(1, runs.list().size());
        copy(ADVICE_TRACE, root.resolve("second.pt.trace.json"));
        now.addAndGet(Runs.RESCAN_MILLIS - 1);
        assertEquals("not walked again within the interval", 1, runs.list().size());
        now.addAndGet(1);
        assertEquals(2, runs.list().size());
    }

    @Test
    public void aDamagedTraceIsItsOwnErrorRowAndIsReadAgainWhenItChanges() throws Exception {
        Path root = tmp.newFolder("logs").toPath();
        Path broken = Files.writeString(root.resolve("broken.pt.trace.json"), "{\"traceEvents\": [");
        copy(ADVICE_TRACE, root.resolve("good.pt.trace.json"));
        AtomicLong now = new AtomicLong();
        Runs runs = new Runs(new Logdir(root), 8, now::get);
        Logdir.Found bad = runs.list().get(0);
        assertEquals("broken.pt.trace.json", bad.name());
        try {
            runs.analysed(bad);
            fail("a damaged trace was read");
        } catch (IOException e) {
            assertTrue(e.getMessage(), e.getMessage().contains("broken.pt.trace.json"));
        }
        assertEquals("error", runs.status(bad)[0]);
        assertTrue(runs.status(bad)[1].contains("damaged"));
        // the other run reads
        Logdir.Found good = runs.list().get(1);
        assertEquals("good.pt.trace.json", good.name());
        assertNotNull(runs.analysed(good).summary());
        assertArrayEquals(new String[] {"read", null}, runs.status(good));
        // the writer finishes the file: a new version, read again
        Files.copy(RunsTest.class.getResourceAsStream(ADVICE_TRACE), broken,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        now.addAndGet(Runs.RESCAN_MILLIS);
        Logdir.Found fixed = runs.find(bad.id());
        assertEquals("not read", runs.status(fixed)[0]);
        assertEquals(runs.analysed(good).summary().events(), runs.analysed(fixed).summary().events());
    }

    @Test
    public void holdsAtMostItsNumberOfReadRuns() throws Exception {
        Path root = tmp.newFolder("logs").toPath();
        for (int i = 0; i < 4; i++) {
            copy(ADVICE_TRACE, root.resolve("w" + i + ".pt.trace.json"));
        }
        Runs runs = new Runs(new Logdir(root), 2, () -> 0L);
        AnalysedRun first = runs.analysed(runs.list().get(0));
        assertSame("a held run is not read again", first, runs.analysed(runs.list().get(0)));
        for (Logdir.Found f : runs.list()) {
            runs.analysed(f);
            assertTrue(runs.held() <= 2);
        }
        assertEquals(2, runs.held());
        assertEquals("not read", runs.status(runs.list().get(0))[0]);
    }
}
