package dev.vantage.itests;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A distribution's launcher run as its own JVM, as a user runs it; output is read line by line as it comes. */
final class LauncherProcess extends ChildProcess {

    /** What a finished run printed and returned. */
    record Result(int exitCode, String out, String err) {
    }

    private final BlockingQueue<String> lines;

    private LauncherProcess(Process process, BlockingQueue<String> lines) {
        super(process, lines, lines, "err: ");
        this.lines = lines;
    }

    private LauncherProcess(Process process) {
        this(process, new LinkedBlockingQueue<>());
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

    /** Runs to completion, at most 120 s. */
    static Result run(Path home, String... args) throws Exception {
        return run(home, List.of(), args);
    }

    /** Runs to completion in a JVM with options of its own, at most 120 s. */
    static Result run(Path home, List<String> jvmOptions, String... args) throws Exception {
        try (LauncherProcess p = start(home, jvmOptions, args)) {
            int code = p.awaitExit(120);
            return new Result(code, p.out(), p.err());
        }
    }

    /** Returns what the process printed so far: standard output, then standard error. */
    String output() {
        return out() + err();
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
        return awaitLine(lines, text, 30);
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
