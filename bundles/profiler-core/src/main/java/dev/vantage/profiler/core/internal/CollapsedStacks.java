package dev.vantage.profiler.core.internal;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import dev.vantage.profiler.api.StackMetric;
import dev.vantage.profiler.dispatch.OpNames;
import dev.vantage.profiler.spi.TraceFiles;

/**
 * Writes collapsed stacks ({@code frame;frame;frame value}) that {@code flamegraph.pl} and speedscope read: one
 * line per host event that has a stack and a value of at least 1 µs, frames outermost first, the event's name as
 * the innermost frame, the value in whole microseconds. Spaces, semicolons, tabs and line breaks inside a frame
 * become underscores, as torch's {@code export_stacks} does. Streams line by line; written under a temporary name
 * and renamed.
 */
final class CollapsedStacks {

    private CollapsedStacks() {
    }

    static void write(Analysis a, Path target, StackMetric metric) throws IOException {
        TraceFiles.writeFile(target, out -> {
            Writer w = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16);
            for (int k = 0; k < a.cycle.threads().size(); k++) {
                ThreadBuffer.Snapshot s = a.cycle.threads().get(k);
                for (int i = 0; i < s.size(); i++) {
                    int stackId = a.details(k, i).stackId();
                    if (stackId < 0) {
                        continue;
                    }
                    long nanos = metric == StackMetric.SELF_CPU_TIME_TOTAL ? a.selfNanos[k][i]
                            : a.selfDevice == null ? 0 : a.selfDevice[k][i];
                    long micros = nanos / 1000;
                    if (micros <= 0) {
                        continue;
                    }
                    List<String> frames = a.cycle.stacks().frames(stackId);
                    StringBuilder line = new StringBuilder();
                    for (int f = frames.size() - 1; f >= 0; f--) {
                        line.append(clean(frames.get(f))).append(';');
                    }
                    line.append(clean(OpNames.name(s.name(i)))).append(' ').append(micros).append('\n');
                    w.write(line.toString());
                }
            }
            w.flush();
        });
    }

    static String clean(String frame) {
        return frame.replace(' ', '_').replace(';', '_').replace('\t', '_').replace('\n', '_').replace('\r', '_');
    }
}
