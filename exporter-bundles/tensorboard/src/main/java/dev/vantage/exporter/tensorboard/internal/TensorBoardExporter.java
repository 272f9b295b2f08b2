package dev.vantage.exporter.tensorboard.internal;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.Objects;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

import dev.vantage.profiler.spi.TraceExporter;
import dev.vantage.profiler.trace.Trace;
import dev.vantage.trace.engine.write.KinetoJsonWriter;

/**
 * The {@code tensorboard} format: a run directory for the PyTorch TensorBoard plugin, HTA and plain TensorBoard
 * (see {@link TensorBoardWriter}). The trace itself is written by the trace engine's {@link KinetoJsonWriter}, the
 * code the {@code chrome} format writes with, so the two never drift apart and neither needs the other installed.
 */
@Component(service = TraceExporter.class)
@Designate(ocd = TensorBoardExporter.Config.class)
public class TensorBoardExporter implements TraceExporter {

    /** Configuration (PID {@code dev.vantage.exporter.tensorboard.internal.TensorBoardExporter}). */
    @ObjectClassDefinition(name = "Vantage TensorBoard exporter")
    public @interface Config {
        /** The worker name in trace file names; empty for {@code <hostname>_<pid>}, as torch's handler. */
        @AttributeDefinition(description = "Worker name in trace file names; empty for <hostname>_<pid>")
        String workerName() default "";

        /** Whether traces are gzip-compressed. */
        @AttributeDefinition(description = "Write .pt.trace.json.gz rather than .pt.trace.json")
        boolean useGzip() default true;
    }

    private volatile TensorBoardWriter writer;

    /** The constructor SCR uses. */
    public TensorBoardExporter() {
    }

    /** For tests outside the platform: writes run directories with a given writer. */
    TensorBoardExporter(TensorBoardWriter writer) {
        this.writer = writer;
    }

    @Activate
    void activate(Config config) {
        configure(config);
    }

    @Modified
    void configure(Config config) {
        String host = hostName();
        String worker = config.workerName().isBlank() ? host + "_" + ProcessHandle.current().pid()
                : config.workerName().replaceAll("[/\\\\]", "_");
        writer = new TensorBoardWriter(KinetoJsonWriter::export, worker, host, config.useGzip());
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }

    @Override
    public String format() {
        return "tensorboard";
    }

    /** A run directory named after the profile: TensorBoard's log directory is the directory above it. */
    @Override
    public Path defaultTarget(Path directory, String baseName) {
        return directory.resolve(baseName);
    }

    /** Every cycle goes into the same run directory, as torch's handler does: one trace file per cycle. */
    @Override
    public Path defaultTarget(Path directory, String baseName, int cycle) {
        return defaultTarget(directory, baseName);
    }

    @Override
    public void export(Trace trace, Path target) throws IOException {
        writer.write(Objects.requireNonNull(trace, "trace"), target.toAbsolutePath());
    }
}
