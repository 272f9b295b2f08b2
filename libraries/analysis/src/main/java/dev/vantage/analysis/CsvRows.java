package dev.vantage.analysis;

import java.io.Closeable;
import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.SequenceWriter;
import com.fasterxml.jackson.dataformat.csv.CsvGenerator;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;

/**
 * Rows of CSV for {@code compare --format csv} and {@code analyze --format csv}, written with Jackson's CSV module
 * as the csv exporter writes its files: a value is quoted only when it must be (it holds a comma, a quote or a line
 * break), with its quotes doubled (RFC 4180). Not thread-safe; one instance writes one run of rows.
 */
public final class CsvRows implements Closeable {

    private static final CsvMapper MAPPER = CsvMapper.builder()
            .enable(CsvGenerator.Feature.STRICT_CHECK_FOR_QUOTING)
            .disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET)
            .build();

    private final SequenceWriter rows;

    /**
     * Starts rows on a writer. Nothing else may write to {@code out} until {@link #close()}: Jackson buffers.
     *
     * @param out where the rows go; flushed, never closed, by {@link #close()}
     * @param lineSeparator what ends each row
     * @throws IOException if Jackson cannot start writing
     */
    public CsvRows(Writer out, String lineSeparator) throws IOException {
        rows = MAPPER.writer(CsvSchema.emptySchema().withLineSeparator(lineSeparator)).writeValues(out);
    }

    /**
     * Writes one row.
     *
     * @param values the fields, already formatted; a null is written as an empty field
     * @throws IOException if writing fails
     */
    public void row(List<String> values) throws IOException {
        List<String> fields = new ArrayList<>(values.size());
        for (String v : values) {
            // without a schema of columns Jackson would leave a null out, shifting the fields after it
            fields.add(v == null ? "" : v);
        }
        rows.write(fields);
    }

    /** Writes what Jackson still buffers and flushes the writer, which stays open. */
    @Override
    public void close() throws IOException {
        rows.close();
    }
}
