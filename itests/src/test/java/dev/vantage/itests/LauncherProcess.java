package dev.vantage.itests;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A distribution's launcher run as its own JVM, as a user runs it; output is read line by line as it comes. */
final class LauncherProcess implements AutoCloseable {

    /** What a finished run printed and returned. */
    record Result(int exitCode, String out, String err) {
    }

    private final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final StringBuilder out = new StringBuilder();
    private final StringBuilder err = new StringBuilder();
    private final List<Thread> readers = new ArrayList<>();

    private LauncherProcess(Process process) {
        this.process = process;
        readers.add(pump(process.getInputStream(), out, ""));
        readers.add(pump(process.getErrorStream(), err, "err: "));
    }

    static LauncherProcess start(Path home, String... args) throws IOException {
        return start(home, List.of(), args);
    }

    /** Starts the launcher in a JVM with options of its own, such as {@code -Xmx64m}. */
    static LauncherProcess start(Path home, List<String> jvmOptions, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-jar");
        command.add(home.resolve("launcher.jar").toString());
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().remove("VANTAGE_PROFILER_DIR");
        return new LauncherProcess(pb.start());
    }

    /** Runs a command line as a user types it, in bash, in a directory and with environment variables of its own. */
    static LauncherProcess bash(Path dir, java.util.Map<String, String> env, String commandLine) throws IOException {
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", commandLine).directory(dir.toFile());
        pb.environment().remove("VANTAGE_PROFILER_DIR");
        pb.environment().putAll(env);
        return new LauncherProcess(pb.start());
    }

    /** Waits for the process to end, at most the seconds given, and returns its exit code. */
    int awaitExit(long seconds) throws InterruptedException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            throw new AssertionError("the process did not end within " + seconds + " s; output so far:\n"
                    + output());
        }
        for (Thread t : readers) {
            t.join();
        }
        return process.exitValue();
    }

    /** Runs to completion, at most 120 s. */
    static Result run(Path home, String... args) throws Exception {
        return run(home, List.of(), args);
    }

    /** Runs to completion in a JVM with options of its own, at most 120 s. */
    static Result run(Path home, List<String> jvmOptions, String... args) throws Exception {
        try (LauncherProcess p = start(home, jvmOptions, args)) {
            if (!p.process.waitFor(120, TimeUnit.SECONDS)) {
                throw new AssertionError("launcher " + String.join(" ", args) + " did not finish within 120 s");
            }
            for (Thread t : p.readers) {
                t.join();
            }
            synchronized (p) {
                return new Result(p.process.exitValue(), p.out.toString(), p.err.toString());
            }
        }
    }

    /** Returns what the process printed so far: standard output, then standard error. */
    synchronized String output() {
        return out.toString() + err;
    }

    /** Writes a line to the process's standard input and keeps it open, for a shell that reads commands. */
    void send(String line) throws IOException {
        var in = process.getOutputStream();
        in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    /** Writes text to the process's standard input and closes it. */
    void input(String text) throws IOException {
        try (var in = process.getOutputStream()) {
            in.write(text.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** Waits for the process to end, at most 60 s, and returns its exit code. */
    int awaitExit() throws InterruptedException {
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            throw new AssertionError("the launcher did not end within 60 s");
        }
        return process.exitValue();
    }

    /** Waits for a line (standard output, or standard error prefixed {@code err: }) containing a text. */
    String awaitLine(String text) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            long left = deadline - System.nanoTime();
            String line = left > 0 ? lines.poll(left, TimeUnit.NANOSECONDS) : null;
            if (line == null) {
                synchronized (this) {
                    throw new AssertionError("no line containing '" + text + "' within 30 s; output so far:\n"
                            + out + err);
                }
            }
            if (line.contains(text)) {
                return line;
            }
        }
    }

    private Thread pump(InputStream stream, StringBuilder sink, String prefix) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    synchronized (this) {
                        sink.append(line).append('\n');
                    }
                    lines.add(prefix + line);
                }
            } catch (IOException e) {
                lines.add(prefix + "<read failed: " + e + ">");
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

    /** Runs the launcher, expecting a refusal: exit code 2 and one line on standard error. */
    static String refused(Path home, String... args) throws Exception {
        LauncherProcess.Result r = LauncherProcess.run(home, args);
        org.junit.Assert.assertEquals(r.err() + r.out(), 2, r.exitCode());
        List<String> lines = r.err().lines().toList();
        org.junit.Assert.assertEquals("one line: " + lines, 1, lines.size());
        return lines.get(0);
    }
}
