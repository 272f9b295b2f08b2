package dev.vantage.verbs.internal;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * One progress line on a terminal (the step, the schedule's action, the export under way), rewritten in place and
 * cleared before anything else is printed; nothing when the output is a file or a pipe.
 */
final class Progress {

    /** Carriage return, then ANSI erase-line. */
    static final String CLEAR = "\r\u001b[2K";

    private final PrintStream err;
    private final boolean enabled;
    private boolean shown;

    Progress(PrintStream err, boolean enabled) {
        this.err = err;
        this.enabled = enabled;
    }

    synchronized void show(String text) {
        if (enabled) {
            err.print(CLEAR + text);
            err.flush();
            shown = true;
        }
    }

    synchronized void clear() {
        if (shown) {
            err.print(CLEAR);
            err.flush();
            shown = false;
        }
    }

    /** A stream that clears the line before each write to {@code target}, for a workload's own output. */
    PrintStream clearingBefore(PrintStream target) {
        if (!enabled) {
            return target;
        }
        return new PrintStream(new OutputStream() {
            @Override
            public void write(int b) {
                clear();
                target.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                clear();
                target.write(b, off, len);
            }

            @Override
            public void flush() {
                target.flush();
            }
        }, true, StandardCharsets.UTF_8);
    }
}
