package dev.vantage.launcher.analysis;

import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import dev.vantage.cli.ParsedCommand;
import dev.vantage.launcher.Folders;
import dev.vantage.launcher.LaunchException;

/**
 * Runs the analysis verbs ({@code runs}, {@code compare}, {@code report}, {@code analyze}) from the analysis
 * library a distribution carries in {@code lib/analysis/}, in a class loader of its own: they read published
 * outputs only, so they need neither the platform nor its bundles, and their dependencies (Jackson, DuckDB, ...)
 * never meet the framework's classes.
 */
public final class AnalysisTools {

    private static final String ENTRY = "dev.vantage.analysis.Tools";

    private AnalysisTools() {
    }

    /**
     * Runs an analysis verb with its checked options, in a class loader made for the call.
     *
     * @return the verb's exit code
     * @throws LaunchException if the distribution carries no analysis library
     */
    public static int run(Path home, ParsedCommand command, PrintStream out, PrintStream err) throws Exception {
        try (Library library = open(home)) {
            return library.run(command, out, err);
        }
    }

    /**
     * Loads a distribution's analysis library, to run any number of verbs in it (a resident process keeps it, so its
     * classes stay loaded and compiled between calls).
     *
     * @throws LaunchException if the distribution carries no analysis library
     */
    public static Library open(Path home) throws Exception {
        Path lib = home.resolve("lib").resolve("analysis");
        List<URL> urls = new ArrayList<>();
        for (Path jar : Folders.jars(lib, false)) {
            urls.add(jar.toUri().toURL());
        }
        if (urls.isEmpty()) {
            throw new LaunchException("the analysis verbs need the analysis library in " + lib
                    + ", which this distribution does not carry; use the full distribution");
        }
        // the parent is this class loader, so that the library reads the options the command tree parsed (the command
        // tree and picocli are the launcher's); its own dependencies (Jackson, DuckDB, ...) stay in the child
        URLClassLoader tools = new URLClassLoader(urls.toArray(new URL[0]), AnalysisTools.class.getClassLoader());
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        try {
            Thread.currentThread().setContextClassLoader(tools);
            Method entry = Class.forName(ENTRY, true, tools).getMethod("run", ParsedCommand.class, PrintStream.class,
                    PrintStream.class);
            return new Library(tools, entry);
        } catch (ReflectiveOperationException | RuntimeException | Error e) {
            tools.close();
            throw e;
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
        }
    }

    /** A distribution's analysis library, loaded. */
    public static final class Library implements AutoCloseable {
        private final URLClassLoader loader;
        private final Method entry;

        private Library(URLClassLoader loader, Method entry) {
            this.loader = loader;
            this.entry = entry;
        }

        /** Runs an analysis verb with its checked options and returns its exit code. */
        public int run(ParsedCommand command, PrintStream out, PrintStream err) throws Exception {
            ClassLoader previous = Thread.currentThread().getContextClassLoader();
            try {
                Thread.currentThread().setContextClassLoader(loader);
                return (Integer) entry.invoke(null, command, out, err);
            } catch (InvocationTargetException e) {
                if (e.getCause() instanceof Error error) {
                    throw error; // out of memory, say: the launcher says so in its own words
                }
                throw e.getCause() instanceof Exception cause ? cause : e;
            } finally {
                Thread.currentThread().setContextClassLoader(previous);
            }
        }

        @Override
        public void close() throws java.io.IOException {
            loader.close();
        }
    }
}
