package dev.vantage.exporter.tensorboard.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

import dev.vantage.profiler.spi.TraceFiles;
import dev.vantage.profiler.trace.Trace;

/**
 * One run directory as the PyTorch TensorBoard plugin and plain TensorBoard read it, like torch's
 * {@code tensorboard_trace_handler}: the trace as {@code <worker>.<epoch-ns>.pt.trace.json[.gz]} (the plugin's
 * pattern {@code ^(.*?)(\.\d+)?\.pt\.trace\.json(?:\.gz)?$}), and next to it an
 * {@code events.out.tfevents.<seconds>.<host>.<pid>} file with the per-step scalars of {@link StepScalars}. Each file is
 * written under a temporary name and renamed.
 */
final class TensorBoardWriter {

    /** Writes a trace in Chrome trace format to a file. */
    @FunctionalInterface
    interface TraceFileWriter {
        void write(Trace trace, Path file) throws IOException;
    }

    private final TraceFileWriter traceWriter;
    private final String worker;
    private final String host;
    private final boolean gzip;

    TensorBoardWriter(TraceFileWriter traceWriter, String worker, String host, boolean gzip) {
        this.traceWriter = traceWriter;
        this.worker = worker;
        this.host = host;
        this.gzip = gzip;
    }

    /**
     * Returns the trace file written. When writing fails (a full disk, say), the trace file this call wrote is
     * removed again, and so is the run directory if this call made it and nothing else is in it: a failed export
     * leaves no empty run directory for TensorBoard to list.
     */
    Path write(Trace trace, Path runDir) throws IOException {
        boolean made = !Files.isDirectory(runDir);
        Files.createDirectories(runDir);
        Instant now = Instant.now();
        long epochNanos = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        Path traceFile = runDir.resolve(worker + "." + epochNanos + ".pt.trace.json" + (gzip ? ".gz" : ""));
        boolean written = false;
        try {
            traceWriter.write(trace, traceFile);
            writeEvents(trace, runDir, now);
            written = true;
        } finally {
            if (!written) {
                Files.deleteIfExists(traceFile);
                if (made) {
                    try {
                        Files.deleteIfExists(runDir);
                    } catch (IOException e) {
                        // another rank's worker wrote into it meanwhile: it stays
                    }
                }
            }
        }
        return traceFile;
    }

    private void writeEvents(Trace trace, Path runDir, Instant now) throws IOException {
        // TensorFlow 2's name: time, host, pid; the ranks of a job write into one run directory in the same second
        String base = "events.out.tfevents." + now.getEpochSecond() + "." + host + "."
                + ProcessHandle.current().pid();
        Path file = runDir.resolve(base);
        for (int n = 1; Files.exists(file); n++) {
            file = runDir.resolve(base + "." + n);
        }
        double wallTime = now.getEpochSecond() + now.getNano() / 1e9;
        TraceFiles.writeFile(file, out -> {
            TfRecordWriter records = new TfRecordWriter(out);
            records.write(EventProtos.fileVersion(wallTime));
            for (StepScalars.Scalar s : StepScalars.of(trace)) {
                records.write(EventProtos.scalar(wallTime, s.step(), s.tag(), s.value()));
            }
        });
    }
}
