package dev.vantage.exporter.chrome.internal;

import java.io.IOException;
import java.nio.file.Path;

import org.osgi.service.component.annotations.Component;

import dev.vantage.profiler.spi.TraceExporter;
import dev.vantage.profiler.trace.Trace;
import dev.vantage.trace.engine.write.KinetoJsonWriter;

/**
 * The {@code chrome} format: Kineto-style Chrome trace JSON that Perfetto and chrome://tracing open, written by the
 * trace engine's {@link KinetoJsonWriter} (which the tensorboard format writes its trace with too). A target ending
 * in {@code .gz} is gzip-compressed. The file is written under a temporary name in the target's directory and
 * renamed when complete, so a failure never leaves a partial trace under the target's name; encoding and writing
 * overlap.
 */
@Component(service = TraceExporter.class)
public class ChromeTraceExporter implements TraceExporter {

    @Override
    public String format() {
        return "chrome";
    }

    @Override
    public Path defaultTarget(Path directory, String baseName) {
        return directory.resolve(baseName + ".trace.json.gz");
    }

    @Override
    public void export(Trace trace, Path target) throws IOException {
        KinetoJsonWriter.export(trace, target);
    }
}
