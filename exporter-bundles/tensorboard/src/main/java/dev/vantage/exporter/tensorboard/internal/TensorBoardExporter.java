package dev.vantage.exporter.tensorboard.internal;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.Objects;

import org.osgi.service.component.ComponentContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

import dev.vantage.profiler.api.Profiler;
import dev.vantage.profiler.spi.TraceExporter;
import dev.vantage.profiler.trace.Trace;

/**
 * The {@code tensorboard} format: a run directory for the PyTorch TensorBoard plugin, HTA and plain TensorBoard
 * (see {@link TensorBoardWriter}). The trace itself is written by the installed {@code chrome} exporter, reached
 * through the profiler service, so the two formats never drift apart and no exporter depends on another's code.
 */
// the profiler is looked up when a trace is written, not bound at activation: the profiler itself binds every
// exporter, and binding each other eagerly would be a cycle
@Component(service = TraceExporter.class, reference = @Reference(name = "profiler", service = Profiler.class))
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

    private ComponentContext context;

    private volatile TensorBoardWriter writer;

    /** The constructor SCR uses. */
    public TensorBoardExporter() {
    }

    /** For tests outside the platform: writes run directories with a given writer. */
    TensorBoardExporter(TensorBoardWriter writer) {
        this.writer = writer;
    }

    @Activate
    void activate(ComponentContext componentContext, Config config) {
        this.context = componentContext;
        configure(config);
    }

    @Modified
    void configure(Config config) {
        String host = hostName();
        String worker = config.workerName().isBlank() ? host + "_" + ProcessHandle.current().pid()
                : config.workerName().replaceAll("[/\\\\]", "_");
        writer = new TensorBoardWriter(this::writeChrome, worker, host, config.useGzip());
    }

    private void writeChrome(Trace trace, Path file) throws IOException {
        Profiler profiler = (Profiler) context.locateService("profiler");
        if (profiler == null || !profiler.exporterFormats().contains("chrome")) {
            throw new IOException("the tensorboard format writes its trace with the chrome exporter, which is not"
                    + " installed");
        }
        profiler.export(trace, "chrome", file);
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
