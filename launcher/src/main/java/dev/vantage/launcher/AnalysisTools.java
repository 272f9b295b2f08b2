package dev.vantage.launcher;

import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs the analysis verbs ({@code runs}, {@code compare}, {@code report}, {@code analyze}) from the analysis
 * library a distribution carries in {@code lib/analysis/}, in a class loader of its own: they read published
 * outputs only, so they need neither the platform nor its bundles, and their dependencies (Jackson, DuckDB, ...)
 * never meet the framework's classes.
 */
final class AnalysisTools {

    private static final String ENTRY = "dev.vantage.analysis.Tools";

    private AnalysisTools() {
    }

    static int run(Path home, String verb, List<String> args, PrintStream out, PrintStream err) throws Exception {
        Path lib = home.resolve("lib").resolve("analysis");
        List<URL> urls = new ArrayList<>();
        for (Path jar : Main.jars(lib, false)) {
            urls.add(jar.toUri().toURL());
        }
        if (urls.isEmpty()) {
            throw new Main.LaunchException("'" + verb + "' needs the analysis library in " + lib
                    + ", which this distribution does not carry; use the full distribution");
        }
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        try (URLClassLoader tools = new URLClassLoader(urls.toArray(new URL[0]),
                ClassLoader.getPlatformClassLoader())) {
            Thread.currentThread().setContextClassLoader(tools);
            Class<?> entry = Class.forName(ENTRY, true, tools);
            return (Integer) entry.getMethod("run", String.class, List.class, PrintStream.class, PrintStream.class)
                    .invoke(null, verb, args, out, err);
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
        }
    }
}
