package dev.vantage.analysis;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One call of an analysis verb as the launcher makes it ({@link Tools#run}): the exit code and what it printed.
 *
 * @param code the exit code
 * @param out what the verb printed on standard output
 * @param err what it printed on standard error
 */
public record VerbRun(int code, String out, String err) {

    /** Runs {@code line} (verb first) with no environment. */
    public static VerbRun of(String... line) {
        return of(Map.of(), List.of(line));
    }

    /** Runs {@code verb} with {@code args}, as {@code vantage verb args...}, with no environment. */
    public static VerbRun verb(String verb, String... args) {
        List<String> line = new ArrayList<>(List.of(verb));
        line.addAll(List.of(args));
        return of(Map.of(), line);
    }

    /** Runs {@code line} (verb first) with {@code env} as the environment. */
    public static VerbRun of(Map<String, String> env, List<String> line) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Tools.run(line, env, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new VerbRun(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
