package dev.vantage.exporter.files.internal;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import dev.vantage.profiler.api.StackMetric;
import dev.vantage.profiler.spi.TraceFiles;
import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.Trace;

/**
 * Writes collapsed stacks ({@code frame;frame;frame value}) that {@code flamegraph.pl} and speedscope read: one
 * line per host event that has a stack and a value of at least 1 µs, frames outermost first, the event's name as
 * the innermost frame, the value in whole microseconds (its self host time, or the device time of the work it
 * launched itself). Spaces, semicolons, tabs and line breaks inside a frame become underscores, as torch's
 * {@code export_stacks} does. Streams line by line from the trace's cursor; written under a temporary name and
 * renamed.
 */
final class CollapsedStacks {

    private CollapsedStacks() {
    }

    static void write(Trace trace, Path target, StackMetric metric) throws IOException {
        TraceFiles.writeFile(target, out -> {
            Writer w = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16);
            EventCursor c = trace.events();
            while (c.next()) {
                EventKind kind = c.kind();
                if (kind.isDeviceWork() || kind == EventKind.MEMORY || kind == EventKind.OUT_OF_MEMORY) {
                    continue;
                }
                long nanos = metric == StackMetric.SELF_CPU_TIME_TOTAL ? c.selfDurationNanos() : c.deviceSelfNanos();
                long micros = nanos / 1000;
                if (micros <= 0) {
                    continue;
                }
                List<String> frames = c.stack();
                if (frames.isEmpty()) {
                    continue;
                }
                StringBuilder line = new StringBuilder();
                // the cursor gives frames innermost first; collapsed stacks start at the outermost
                for (int f = frames.size() - 1; f >= 0; f--) {
                    line.append(clean(frames.get(f))).append(';');
                }
                line.append(clean(c.name())).append(' ').append(micros).append('\n');
                w.write(line.toString());
            }
            w.flush();
        });
    }

    static String clean(String frame) {
        return frame.replace(' ', '_').replace(';', '_').replace('\t', '_').replace('\n', '_').replace('\r', '_');
    }
}
