package dev.vantage.exporter.tensorboard.internal;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

import dev.vantage.profiler.spi.TraceExporter;
import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.exporter.contract.TraceExporterContract;

/**
 * The exporter contract for {@code tensorboard}. The trace file itself is the chrome exporter's work (tested
 * there); here a stand-in streams the trace's events into a gzip file of their count and names, and the event
 * file is read back checking every record's CRCs.
 */
public class TensorBoardContractTest extends TraceExporterContract {

    @Override
    protected TraceExporter exporter() {
        return new TensorBoardExporter(new TensorBoardWriter((trace, file) -> {
            // the count first, then every name, gzip-compressed and streamed as the real trace file is
            try (Writer w = new OutputStreamWriter(new GZIPOutputStream(Files.newOutputStream(file)),
                    StandardCharsets.UTF_8)) {
                w.write(trace.eventCount() + "\n");
                EventCursor c = trace.events();
                while (c.next()) {
                    w.write(c.name());
                    w.write('\n');
                }
            }
        }, "host_1", "host", true));
    }

    /** Returns the event count the stand-in wrote, after reading every TFRecord of the event file. */
    @Override
    protected long readBack(Path runDir) throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.list(runDir)) {
            files = s.toList();
        }
        long count = -2;
        for (Path f : files) {
            String name = f.getFileName().toString();
            if (name.startsWith("events.out.tfevents.")) {
                TensorBoardWriterTest.records(f);
            } else if (name.endsWith(".pt.trace.json.gz")) {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(
                        new GZIPInputStream(Files.newInputStream(f)), StandardCharsets.UTF_8))) {
                    count = Long.parseLong(r.readLine());
                }
            }
        }
        if (files.size() != 2 || count < 0) {
            throw new AssertionError("expected a trace and an event file in " + runDir + ": " + files);
        }
        return count;
    }
}
