package dev.vantage.itests;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A JVM or shell the tests start as a user would: its standard output and error are kept per stream and handed,
 * line by line as they come, to the queues a subclass waits on.
 */
abstract class ChildProcess implements AutoCloseable {

    final Process process;
    private final StringBuilder out = new StringBuilder();
    private final StringBuilder err = new StringBuilder();
    private final List<Thread> readers = new ArrayList<>();

    /**
     * @param outLines where standard output's lines go as they come, or null
     * @param errLines where standard error's lines go, each after {@code errPrefix}, or null
     */
    ChildProcess(Process process, BlockingQueue<String> outLines, BlockingQueue<String> errLines, String errPrefix) {
        this.process = process;
        readers.add(pump(process.getInputStream(), out, outLines, ""));
        readers.add(pump(process.getErrorStream(), err, errLines, errPrefix));
    }

    /** Waits for the process to end, at most the seconds given, and returns its exit code. */
    int awaitExit(long seconds) throws InterruptedException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            throw new AssertionError("the process did not end within " + seconds + " s; output so far:\n" + out()
                    + err());
        }
        for (Thread t : readers) {
            t.join();
        }
        return process.exitValue();
    }

    /** Takes lines from a queue until one contains the text, at most the seconds given, and returns it. */
    String awaitLine(BlockingQueue<String> lines, String text, long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true) {
            long left = deadline - System.nanoTime();
            String line = left > 0 ? lines.poll(left, TimeUnit.NANOSECONDS) : null;
            if (line == null) {
                throw new AssertionError("no line containing '" + text + "' within " + seconds
                        + " s; output so far:\n" + out() + err());
            }
            if (line.contains(text)) {
                return line;
            }
        }
    }

    /** What the process printed on standard output so far. */
    synchronized String out() {
        return out.toString();
    }

    /** What the process printed on standard error so far. */
    synchronized String err() {
        return err.toString();
    }

    private Thread pump(InputStream stream, StringBuilder sink, BlockingQueue<String> lines, String prefix) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    synchronized (this) {
                        sink.append(line).append('\n');
                    }
                    if (lines != null) {
                        lines.add(prefix + line);
                    }
                }
            } catch (IOException e) {
                if (lines != null) {
                    lines.add(prefix + "<read failed: " + e + ">");
                }
            }
        });
        t.setDaemon(true);
        t.start();
        return t;
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }
}
