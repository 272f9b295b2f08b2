package dev.vantage.exporter.csv.internal;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;

import dev.vantage.profiler.spi.TraceExporter;
import dev.vantage.exporter.contract.TraceExporterContract;

/** The exporter contract for {@code csv}: every view parses with Apache Commons CSV, row by row. */
public class CsvContractTest extends TraceExporterContract {

    @Override
    protected TraceExporter exporter() {
        return new CsvTraceExporter();
    }

    /** The views aggregate, so this checks every file parses with full rows and returns -1. */
    @Override
    protected long readBack(Path target) throws IOException {
        for (String view : List.of("kernel_details.csv", "operator_details.csv", "op_statistic.csv",
                "step_trace_time.csv")) {
            Path file = target.resolve(view);
            try (Reader r = Files.newBufferedReader(file);
                    CSVParser p = CSVFormat.DEFAULT.builder().setHeader().setSkipHeaderRecord(true).build()
                            .parse(r)) {
                int columns = p.getHeaderNames().size();
                for (CSVRecord row : p) {
                    if (row.size() != columns) {
                        throw new AssertionError(view + " row " + row.getRecordNumber() + " has " + row.size()
                                + " values for " + columns + " columns");
                    }
                }
            }
        }
        return -1;
    }
}
