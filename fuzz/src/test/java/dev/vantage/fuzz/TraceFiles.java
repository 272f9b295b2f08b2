package dev.vantage.fuzz;

import java.io.IOException;
import java.nio.file.Path;

import dev.vantage.trace.engine.read.TraceReader;
import dev.vantage.trace.engine.read.TraceRepairs;
import dev.vantage.trace.engine.summary.TraceSummary;

/**
 * One input of a trace reader's target, read as {@code report}, {@code compare} and {@code convert} read a file: by
 * {@link TraceReader}, which chooses the reader by the file's name and first bytes, into the views the verbs show;
 * once repairing what it can, once strict.
 *
 * <p>The refusal is {@link TraceReader}'s: an {@link IOException} whose one-line message starts with the file's path
 * ({@code DamagedTraceException} is one: "FILE is damaged at byte N: ..."). The file is readable, so no other
 * exception can be right.
 */
final class TraceFiles {

    private TraceFiles() {
    }

    /** Reads {@code content} as a file named {@code name}, repairing and strict; a finding throws. */
    static void read(String name, byte[] content) {
        Path file = Refusals.file(name, content);
        for (boolean strict : new boolean[] {false, true}) {
            TraceRepairs repairs = new TraceRepairs(strict);
            try {
                TraceSummary summary = TraceReader.summary(file, repairs);
                if (summary == null) {
                    throw new AssertionError("no summary and no refusal");
                }
                String line = repairs.line(name);
                if (line != null && line.indexOf('\n') >= 0) {
                    throw new AssertionError("the account of repairs is one line, not '" + line + "'");
                }
            } catch (IOException e) {
                Refusals.expect(e, IOException.class, file.toString());
            }
        }
    }
}
