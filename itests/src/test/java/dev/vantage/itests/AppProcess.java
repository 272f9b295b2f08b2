package dev.vantage.itests;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.stream.Stream;

/**
 * One of the test applications ({@code itests/test-apps}) run in a JVM of its own, as its user runs it, with or
 * without the agent: {@code java [options] -jar app.jar [args]}. DJL is told to stay offline and not to report
 * usage (environment and system properties both), as every JVM that loads DJL's code must be here. Output is kept
 * per stream and read line by line as it comes.
 */
final class AppProcess extends ChildProcess {

    /** The agent jar, built with the full distribution. */
    static final Path AGENT = Distributions.home("full").resolve("vantage-agent.jar");
    private static final Path APPS = Paths.get(System.getProperty("vantage.test.apps", "test-apps"));
    /** The LangChain4j application. */
    static final Path EMBEDDINGS = APPS.resolve("embeddings/target/embeddings-app.jar");
    /** The application that calls ONNX Runtime 1.16 directly. */
    static final Path ORT_DIRECT = APPS.resolve("onnxruntime-direct/target/ort-direct-app.jar");

    private final BlockingQueue<String> errLines;

    private AppProcess(Process process, BlockingQueue<String> errLines) {
        super(process, null, errLines, "");
        this.errLines = errLines;
    }

    /**
     * Starts an application.
     *
     * @param java the {@code bin/java} to run it with
     * @param jvmOptions options before {@code -jar}, such as {@code -javaagent:...}
     * @param jar the application's jar
     * @param args its arguments
     */
    static AppProcess start(Path java, List<String> jvmOptions, Path jar, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(java.toString());
        command.add("-DOPT_OUT_TRACKING=true");
        command.add("-Dai.djl.offline=true");
        command.addAll(jvmOptions);
        command.add("-jar");
        command.add(jar.toString());
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().remove("VANTAGE_PROFILER_DIR");
        pb.environment().put("OPT_OUT_TRACKING", "true");
        pb.environment().put("DJL_OFFLINE", "true");
        return new AppProcess(pb.start(), new LinkedBlockingQueue<>());
    }

    /** The JVM's process id. */
    long pid() {
        return process.pid();
    }

    /** Waits for a line of standard error containing a text, at most 60 s, and returns it. */
    String awaitErrLine(String text) throws InterruptedException {
        return awaitLine(errLines, text, 60);
    }

    /**
     * Loads the agent into a running JVM as its user does: {@code java -jar vantage-agent.jar <pid> <options>}, on the
     * given JDK; at most 120 s.
     */
    static LauncherProcess.Result load(Path java, long pid, String options) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(java.toString(), "-jar", AGENT.toString(), Long.toString(pid), options);
        try (AppProcess p = new AppProcess(pb.start(), new LinkedBlockingQueue<>())) {
            int code = p.awaitExit(120);
            return new LauncherProcess.Result(code, p.out(), p.err());
        }
    }

    /** The feature version (17, 25, ...) of the JDK a {@code bin/java} belongs to, from its {@code release} file. */
    static int feature(Path java) throws IOException {
        Path release = java.toAbsolutePath().getParent().getParent().resolve("release");
        for (String line : Files.readAllLines(release)) {
            if (line.startsWith("JAVA_VERSION=")) {
                return Integer.parseInt(line.substring("JAVA_VERSION=".length()).replace("\"", "").split("[.+-]")[0]);
            }
        }
        throw new IOException("no JAVA_VERSION in " + release);
    }

    /** This JVM's {@code bin/java}. */
    static Path thisJava() {
        return Paths.get(System.getProperty("java.home"), "bin", "java");
    }

    /**
     * The {@code bin/java} of the newest JDK under {@code /usr/lib/jvm} whose feature version is above this JVM's,
     * or null when there is none: services run on 21 and 25, and the agent must too.
     */
    static Path newerJava() throws IOException {
        Path jvms = Paths.get("/usr/lib/jvm");
        if (!Files.isDirectory(jvms)) {
            return null;
        }
        int own = Runtime.version().feature();
        Path best = null;
        int bestVersion = own;
        try (Stream<Path> s = Files.list(jvms)) {
            for (Path jdk : (Iterable<Path>) s::iterator) {
                Path release = jdk.resolve("release");
                Path java = jdk.resolve("bin/java");
                if (!Files.isRegularFile(release) || !Files.isExecutable(java)) {
                    continue;
                }
                int feature = feature(java);
                if (feature > bestVersion) {
                    bestVersion = feature;
                    best = java;
                }
            }
        }
        return best;
    }
}
