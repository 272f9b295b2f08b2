package dev.vantage.exporter.csv.internal;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import com.fasterxml.jackson.databind.SequenceWriter;
import com.fasterxml.jackson.dataformat.csv.CsvGenerator;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;

import dev.vantage.profiler.trace.TraceTime;

/**
 * One CSV file written row by row with Jackson's CSV module. Values are quoted only when they must be (a comma,
 * quote or line break), as Python's {@code csv} module, which torch_npu writes with, does.
 */
final class CsvTable implements AutoCloseable {

    private static final CsvMapper MAPPER = CsvMapper.builder()
            .enable(CsvGenerator.Feature.STRICT_CHECK_FOR_QUOTING)
            .build();

    private final List<String> headers;
    private final OutputStream out;
    private final SequenceWriter writer;

    CsvTable(Path file, List<String> headers) throws IOException {
        this.headers = headers;
        CsvSchema.Builder schema = CsvSchema.builder().setUseHeader(true);
        headers.forEach(schema::addColumn);
        this.out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16);
        this.writer = MAPPER.writer(schema.build()).writeValues(out);
    }

    /**
     * Writes a row; values are formatted already.
     *
     * @throws IllegalArgumentException if the row has more or fewer values than the header
     */
    void row(String... values) throws IOException {
        if (values.length != headers.size()) {
            throw new IllegalArgumentException("row of " + values.length + " values for " + headers.size()
                    + " columns " + headers);
        }
        writer.write(Arrays.asList(values));
    }

    @Override
    public void close() throws IOException {
        writer.close();
        out.close();
    }

    /** Nanoseconds as microseconds with three decimals, as torch_npu's {@code convert_ns2us_str}. */
    static String micros(long nanos) {
        return TraceTime.micros(nanos);
    }

    /** Bytes as mebibytes, {@code bytes / 1024²}, with three decimals. */
    static String megabytes(long bytes) {
        return String.format(java.util.Locale.ROOT, "%.3f", bytes / (1024.0 * 1024.0));
    }

    /** Bytes as kibibytes, {@code bytes / 1024}, with three decimals. */
    static String kilobytes(long bytes) {
        return String.format(java.util.Locale.ROOT, "%.3f", bytes / 1024.0);
    }
}
