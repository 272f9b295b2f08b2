package dev.vantage.analysis;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import dev.vantage.analysis.sql.ResultTable;

/**
 * {@code analyze -o FILE}: written under a temporary name and renamed, as compare and report write theirs, so a
 * failure while writing never leaves half a file under the name asked for.
 */
public class AnalyzeCommandOutputTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    /** A value that fails when it is written, as a full disk would fail the write. */
    private static final Object FAILS = new Object() {
        @Override
        public String toString() {
            throw new UncheckedIOException(new IOException("No space left on device"));
        }
    };

    private static ResultTable table(String name, Object value) {
        return new ResultTable(name, List.of("job_id", "value"),
                List.of(Arrays.asList("job-1", 1L), Arrays.asList("job-1", value)));
    }

    private static List<String> names(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    public void aFailureWhileWritingKeepsTheFileThatWasThereAndLeavesNoTemporaryFile() throws Exception {
        Path dir = tmp.newFolder().toPath();
        Path target = dir.resolve("analysis.csv");
        Files.writeString(target, "the previous analysis\n");
        // the first analysis is written in full before the second one fails
        List<ResultTable> results = List.of(table("step_time", 2L), table("stragglers", FAILS));
        UncheckedIOException e = assertThrows(UncheckedIOException.class,
                () -> AnalyzeCommand.write("csv", results, target, null));
        assertEquals("No space left on device", e.getCause().getMessage());
        assertEquals("the previous analysis\n", Files.readString(target));
        assertEquals(List.of("analysis.csv"), names(dir));

        Files.delete(target);
        assertThrows(UncheckedIOException.class, () -> AnalyzeCommand.write("csv", results, target, null));
        assertEquals("no half file under the final name", List.of(), names(dir));
    }

    @Test
    public void theFileHoldsWhatStandardOutputWouldShow() throws Exception {
        Path dir = tmp.newFolder().toPath();
        Path target = dir.resolve("analysis.json");
        Files.writeString(target, "the previous analysis\n");
        List<ResultTable> results = List.of(table("step_time", 2L), table("stragglers", "straggler"));
        AnalyzeCommand.write("json", results, target, null);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        AnalyzeCommand.write("json", results, null, new PrintStream(out, true, StandardCharsets.UTF_8));
        assertEquals(out.toString(StandardCharsets.UTF_8), Files.readString(target));
        assertEquals(List.of("analysis.json"), names(dir));
    }
}
