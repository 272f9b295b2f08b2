package dev.vantage.analysis;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPOutputStream;

import dev.vantage.trace.engine.read.DamagedTraceException;
import dev.vantage.trace.engine.read.TraceReader;
import dev.vantage.trace.engine.read.TraceRepairs;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import dev.vantage.exporter.contract.GeneratedTrace;
import dev.vantage.exporter.perfetto.internal.PerfettoTraceExporter;

/**
 * Damaged {@code .pftrace} files, made from the perfetto exporter's own output: a file cut off gives every packet
 * before the cut, a packet whose bytes do not parse is skipped, bytes that are not packets end the reading; each is
 * counted with its byte offset (of the uncompressed content of a gzip file), and a strict read refuses the file there.
 */
public class BrokenPerfettoTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private byte[] whole() throws IOException {
        Path file = tmp.getRoot().toPath().resolve("whole.pftrace");
        new PerfettoTraceExporter().export(new GeneratedTrace(2_000), file);
        return Files.readAllBytes(file);
    }

    /** The offsets where the file's packets start: each is the tag 0x0a, a varint length, the packet. */
    private static List<Integer> packets(byte[] b) {
        List<Integer> starts = new ArrayList<>();
        int i = 0;
        while (i < b.length) {
            starts.add(i);
            assertEquals(0x0a, b[i]);
            int length = 0;
            int shift = 0;
            int j = i + 1;
            while (true) {
                int v = b[j++] & 0xff;
                length |= (v & 0x7f) << shift;
                if (v < 0x80) {
                    break;
                }
                shift += 7;
            }
            i = j + length;
        }
        return starts;
    }

    private Path write(String name, byte[] bytes) throws IOException {
        Path f = tmp.getRoot().toPath().resolve(name);
        Files.write(f, bytes);
        return f;
    }

    @Test
    public void aFileCutOffGivesEveryPacketBeforeTheCut() throws IOException {
        byte[] b = whole();
        List<Integer> starts = packets(b);
        int cutPacket = starts.get(starts.size() * 2 / 3);
        byte[] cut = java.util.Arrays.copyOf(b, cutPacket + 5);
        long all = TraceReader.summary(write("whole.pftrace", b)).events();
        TraceRepairs account = new TraceRepairs(false);
        long read = TraceReader.summary(write("cut.pftrace", cut), account).events();
        assertTrue(read + " of " + all, read > all / 2 && read < all);
        assertEquals(1, account.count(TraceRepairs.Kind.CUT_PACKET));
        assertEquals(cutPacket, account.firstOffset());
        DamagedTraceException e = assertThrows(DamagedTraceException.class,
                () -> TraceReader.summary(write("cut2.pftrace", cut), new TraceRepairs(true)));
        assertEquals(cutPacket, e.offset());
        assertTrue(e.getMessage(), e.getMessage().endsWith("is damaged at byte " + cutPacket
                + ": a packet cut off by the end of the file"));
    }

    @Test
    public void aGzipFileCutShortCountsItsUncompressedBytes() throws IOException {
        byte[] b = whole();
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
            out.write(b);
        }
        byte[] cut = java.util.Arrays.copyOf(gz.toByteArray(), gz.size() / 2);
        TraceRepairs account = new TraceRepairs(false);
        TraceReader.summary(write("cut.pftrace.gz", cut), account);
        assertEquals(1, account.count(TraceRepairs.Kind.CUT_PACKET));
        assertTrue(account.line("x"), account.line("x").contains(" of its uncompressed content"));
        assertTrue(packets(b).contains((int) account.firstOffset()));
    }

    @Test
    public void aPacketThatDoesNotParseIsSkippedAndReadingGoesOn() throws IOException {
        byte[] b = whole();
        List<Integer> starts = packets(b);
        int victim = starts.get(starts.size() / 2);
        byte[] damaged = b.clone();
        // the packet's first field gets wire type 7, which no protobuf field has
        int lengthBytes = 1;
        while ((b[victim + lengthBytes] & 0x80) != 0) {
            lengthBytes++;
        }
        damaged[victim + 1 + lengthBytes] = 0x0f;
        long all = TraceReader.summary(write("whole.pftrace", b)).events();
        TraceRepairs account = new TraceRepairs(false);
        long read = TraceReader.summary(write("damaged.pftrace", damaged), account).events();
        assertTrue(read + " of " + all, read >= all - 2 && read < all + 1);
        assertEquals(1, account.count(TraceRepairs.Kind.DAMAGED_PACKET));
        assertEquals(victim, account.firstOffset());
    }

    @Test
    public void bytesThatAreNotPacketsEndTheReadingThere() throws IOException {
        byte[] b = whole();
        List<Integer> starts = packets(b);
        int at = starts.get(starts.size() / 2);
        byte[] junk = b.clone();
        junk[at] = (byte) 0xff; // not a tag of field 1
        junk[at + 1] = (byte) 0xff;
        TraceRepairs account = new TraceRepairs(false);
        TraceReader.summary(write("junk.pftrace", junk), account);
        assertEquals(1, account.count(TraceRepairs.Kind.UNREADABLE_REST));
        assertEquals(at, account.firstOffset());
    }

    @Test
    public void aFileThatIsNotPerfettoIsRefused() throws IOException {
        DamagedTraceException e = assertThrows(DamagedTraceException.class,
                () -> TraceReader.summary(write("text.pftrace", "{\"traceEvents\": []}".getBytes())));
        assertTrue(e.getMessage(), e.getMessage().contains("is damaged at byte 0: it is not a Perfetto trace"));
    }
}
