package dev.vantage.launcher.ranks;

import static org.junit.Assert.assertEquals;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.Test;

public class PrefixedLinesTest {

    private static final String NL = System.lineSeparator();

    /** Copies {@code text} through a PrefixedLines, one byte per read when {@code byteByByte}. */
    private static String copy(String text, boolean byteByByte) throws IOException {
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        PrefixedLines lines = new PrefixedLines(PrefixedLines.prefixOf(3), new PrintStream(sink, true,
                StandardCharsets.UTF_8));
        InputStream in = new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
        if (byteByByte) {
            in = new FilterInputStream(in) {
                @Override
                public int read(byte[] b, int off, int len) throws IOException {
                    return super.read(b, off, Math.min(len, 1));
                }
            };
        }
        lines.copy(in);
        return sink.toString(StandardCharsets.UTF_8);
    }

    @Test
    public void prefixesEveryLineAsTorchrunDoes() throws IOException {
        assertEquals("[rank3]: a" + NL + "[rank3]: " + NL + "[rank3]: b" + NL, copy("a\n\nb\n", false));
        assertEquals("[rank0]: ", PrefixedLines.prefixOf(0));
    }

    @Test
    public void dropsCarriageReturnsBeforeNewlinesAndWritesAnUnfinishedLastLine() throws IOException {
        assertEquals("[rank3]: one" + NL + "[rank3]: two" + NL, copy("one\r\ntwo", false));
        assertEquals("", copy("", false));
    }

    @Test
    public void keepsCharactersWholeWhenTheyArriveInPieces() throws IOException {
        String text = "Grüße 数据 ✓\nnext\n";
        assertEquals("[rank3]: Grüße 数据 ✓" + NL + "[rank3]: next" + NL, copy(text, true));
    }

    @Test
    public void writesAnEndlessLineInBoundedParts() {
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        PrefixedLines lines = new PrefixedLines("[rank0]: ", new PrintStream(sink, true, StandardCharsets.UTF_8));
        byte[] chunk = "y".repeat(4096).getBytes(StandardCharsets.US_ASCII);
        int chunks = PrefixedLines.MAX_LINE_BYTES / chunk.length * 2 + 1;
        for (int i = 0; i < chunks; i++) {
            lines.accept(chunk, 0, chunk.length);
        }
        lines.finish();
        List<String> written = sink.toString(StandardCharsets.US_ASCII).lines().toList();
        assertEquals(3, written.size());
        assertEquals("[rank0]: ".length() + PrefixedLines.MAX_LINE_BYTES, written.get(0).length());
        assertEquals("[rank0]: ".length() + PrefixedLines.MAX_LINE_BYTES, written.get(1).length());
        assertEquals("[rank0]: ".length() + chunk.length, written.get(2).length());
    }
}
