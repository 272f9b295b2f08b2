package dev.vantage.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;

import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.OptionsBuilder;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

/**
 * The agent's three performance goals, side by side in one run, on {@link AgentOrtRun} and {@link AgentStartApp}:
 * <ol>
 * <li>the application's {@code OrtSession.run} with the agent loaded and no capture, against no agent (within
 * noise);</li>
 * <li>the same run while the agent captures it (its capture at start-up, every run a step, ONNX Runtime's nodes
 * recorded), against the application's own session with ONNX Runtime's profiling on (at most + 5 %); the
 * capture's trace is read back afterwards to show it recorded the runs and their nodes;</li>
 * <li>the application's start (launch to its first run's result, and to its exit) with the agent (on demand, and
 * with a capture at start-up) against without (at most + 300 ms on demand).</li>
 * </ol>
 * Forks and launches alternate between the configurations, round after round, so that a change in the machine's
 * load reaches every configuration alike. Run from the repository's root, under the CPU lock:
 * {@code java -cp benchmarks/target/benchmarks.jar dev.vantage.benchmarks.AgentOverhead
 * features/target/dist/full/vantage-agent.jar [ROUNDS [LAUNCHES]]} (defaults 3 and 10).
 */
public final class AgentOverhead {

    private AgentOverhead() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1 || args.length > 3) {
            fail("usage: AgentOverhead AGENT_JAR [ROUNDS [LAUNCHES]]");
        }
        Path agentJar = Path.of(args[0]).toAbsolutePath();
        if (!Files.isRegularFile(agentJar)) {
            fail("agent jar '" + args[0] + "' is not a file (build it with mvn -DskipTests package)");
        }
        int rounds = count(args, 1, 3, "ROUNDS");
        int launches = count(args, 2, 10, "LAUNCHES");
        Path model = OrtServedThroughput.model().toAbsolutePath();
        if (!Files.isRegularFile(model)) {
            fail("model '" + model + "' is not a file (set -Dvantage.bench.models or run from the repository)");
        }
        String models = "-Dvantage.bench.models=" + model.getParent();
        Path out = Files.createTempDirectory("agent-bench");
        try {
            runs(agentJar, models, out, rounds);
            starts(agentJar, models, out, launches);
        } finally {
            AgentOrtRun.deleteTree(out);
        }
    }

    private static void runs(Path agentJar, String models, Path out, int rounds) throws Exception {
        Map<String, String[]> configs = new LinkedHashMap<>();
        configs.put("no agent", new String[] {"none", "off"});
        configs.put("agent loaded, no capture", new String[] {"loaded", "off", "-javaagent:" + agentJar});
        configs.put("ONNX Runtime's own profiling", new String[] {"none", "ort"});
        configs.put("agent capturing", new String[] {"capturing", "off"});
        Map<String, List<double[]>> scores = new LinkedHashMap<>();
        for (int round = 1; round <= rounds; round++) {
            for (Map.Entry<String, String[]> c : configs.entrySet()) {
                String[] v = c.getValue();
                List<String> jvm = new ArrayList<>(List.of(models));
                Path traces = out.resolve("round-" + round);
                if (v[0].equals("capturing")) {
                    jvm.add("-javaagent:" + agentJar + "=start=startup,duration=30m,dir=" + traces + ",name=capture");
                } else if (v.length > 2) {
                    jvm.add(v[2]);
                }
                RunResult r = new Runner(new OptionsBuilder().include(AgentOrtRun.class.getName() + ".run")
                        .param("agent", v[0]).param("profiling", v[1]).forks(1)
                        .jvmArgsAppend(jvm.toArray(String[]::new)).build()).runSingle();
                Result<?> p = r.getPrimaryResult();
                scores.computeIfAbsent(c.getKey(), k -> new ArrayList<>())
                        .add(new double[] {p.getScore(), p.getScoreError()});
                if (v[0].equals("capturing")) {
                    System.out.println("round " + round + ": the capture's trace: "
                            + recorded(traces.resolve("capture.trace.json.gz")));
                }
            }
        }
        System.out.println();
        System.out.println("| configuration | " + header(rounds) + " mean of rounds (µs/run) |");
        System.out.println("|---|" + "---|".repeat(rounds + 1));
        for (Map.Entry<String, List<double[]>> e : scores.entrySet()) {
            StringBuilder row = new StringBuilder("| " + e.getKey() + " | ");
            double sum = 0;
            for (double[] s : e.getValue()) {
                row.append(String.format("%,.1f ± %,.1f | ", s[0], s[1]));
                sum += s[0];
            }
            System.out.println(row.append(String.format("%,.1f |", sum / e.getValue().size())));
        }
        double ort = mean(scores.get("ONNX Runtime's own profiling"));
        System.out.printf("agent loaded, no capture: %+.1f %% against no agent; agent capturing: %+.1f %% against"
                + " ONNX Runtime's own profiling%n", 100 * (mean(scores.get("agent loaded, no capture"))
                / mean(scores.get("no agent")) - 1), 100 * (mean(scores.get("agent capturing")) / ort - 1));
    }

    private static void starts(Path agentJar, String models, Path out, int launches) throws Exception {
        Map<String, String> configs = new LinkedHashMap<>();
        configs.put("no agent", null);
        configs.put("agent, on demand", "-javaagent:" + agentJar);
        configs.put("agent, capture at start-up", "-javaagent:" + agentJar + "=start=startup,dir=" + out
                + "/start,name=start");
        Map<String, List<long[]>> times = new LinkedHashMap<>();
        for (int i = 0; i < launches + 1; i++) {
            for (Map.Entry<String, String> c : configs.entrySet()) {
                long[] t = launch(models, c.getValue());
                if (i > 0) {
                    // the first round warms the file cache and the natives' extraction for all alike
                    times.computeIfAbsent(c.getKey(), k -> new ArrayList<>()).add(t);
                }
            }
        }
        System.out.println();
        System.out.println("| configuration | launch to first result, median (ms) | mean ± sd | launch to exit, median"
                + " (ms) | mean ± sd |");
        System.out.println("|---|---|---|---|---|");
        for (Map.Entry<String, List<long[]>> e : times.entrySet()) {
            System.out.println("| " + e.getKey() + " | " + stats(e.getValue(), 0) + " | " + stats(e.getValue(), 1)
                    + " |");
        }
    }

    /** Launches the application; returns milliseconds to its {@code ran} line and to its exit. */
    private static long[] launch(String models, String agent) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), models,
                "-DOPT_OUT_TRACKING=true", "-Dai.djl.offline=true", "-cp", System.getProperty("java.class.path")));
        if (agent != null) {
            cmd.add(agent);
        }
        cmd.add(AgentStartApp.class.getName());
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        long ran = -1;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (line.startsWith("ran ")) {
                    ran = System.nanoTime() - t0;
                }
            }
        }
        int code = p.waitFor();
        long exit = System.nanoTime() - t0;
        if (code != 0 || ran < 0) {
            throw new IllegalStateException("the application " + (agent == null ? "" : "with " + agent + " ")
                    + "exited with " + code + (ran < 0 ? " before its run" : ""));
        }
        return new long[] {ran / 1_000_000, exit / 1_000_000};
    }

    /** Counts a Chrome trace's {@code ort::run} ops and ONNX Runtime's node events ({@code kernel}). */
    static String recorded(Path trace) throws IOException {
        if (!Files.isRegularFile(trace)) {
            throw new IllegalStateException("the capture wrote no " + trace);
        }
        long runs = 0;
        long nodes = 0;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(trace));
                JsonParser p = new JsonFactory().createParser(in)) {
            for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
                if (t == JsonToken.FIELD_NAME && p.getParsingContext().getParent() != null
                        && p.getParsingContext().getParent().inArray()) {
                    String field = p.currentName();
                    p.nextToken();
                    if (field.equals("name") && "ort::run".equals(p.getText())) {
                        runs++;
                    } else if (field.equals("cat") && "kernel".equals(p.getText())) {
                        nodes++;
                    }
                    if (p.currentToken().isStructStart()) {
                        p.skipChildren();
                    }
                }
            }
        }
        return runs + " ort::run ops, " + nodes + " node events, " + Files.size(trace) + " bytes";
    }

    private static String stats(List<long[]> times, int k) {
        long[] v = times.stream().mapToLong(t -> t[k]).sorted().toArray();
        double mean = Arrays.stream(v).average().orElse(0);
        double var = Arrays.stream(v).mapToDouble(x -> (x - mean) * (x - mean)).sum() / Math.max(1, v.length - 1);
        double median = v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2.0;
        return String.format("%.0f | %.0f ± %.0f", median, mean, Math.sqrt(var));
    }

    private static String header(int rounds) {
        StringBuilder h = new StringBuilder();
        for (int i = 1; i <= rounds; i++) {
            h.append("round ").append(i).append(" (µs/run) | ");
        }
        return h.toString().trim();
    }

    private static double mean(List<double[]> scores) {
        return scores.stream().mapToDouble(s -> s[0]).average().orElse(Double.NaN);
    }

    private static int count(String[] args, int i, int fallback, String name) {
        if (args.length <= i) {
            return fallback;
        }
        try {
            int n = Integer.parseInt(args[i]);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        fail(name + " '" + args[i] + "' is not a positive whole number");
        return 0;
    }

    private static void fail(String message) {
        System.err.println("AgentOverhead: " + message);
        System.exit(2);
    }
}
