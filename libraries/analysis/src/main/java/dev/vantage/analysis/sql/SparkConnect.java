package dev.vantage.analysis.sql;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Opens the Spark Connect engine ({@code analyze --engine spark --remote sc://HOST:PORT}). The engine and the thin
 * Connect client are not on the analysis library's class path: they are in {@code lib/analysis-spark/} beside
 * {@code lib/analysis/} of the full distribution (or the directory the system property
 * {@value #LIB_PROPERTY} names), loaded here in a class loader of their own whose parent shows them only the analysis
 * library's own classes and the JDK. So no Spark class reaches any other verb, and the client's dependencies
 * (Scala, Jackson of its own version) cannot clash with the library's.
 */
public final class SparkConnect {

    /** The system property that names the engine's jar directory instead of the distribution's. */
    public static final String LIB_PROPERTY = "vantage.analysis.spark.lib";

    /** A directory of classes to put before the jars (the engine's build output, for its own tests). */
    public static final String CLASSES_PROPERTY = "vantage.analysis.spark.classes";

    private static final String ENGINE = "dev.vantage.analysis.spark.SparkConnectEngine";

    private SparkConnect() {
    }

    /**
     * Connects to a Spark Connect server and defines the four tables over the files, at the paths given (the
     * cluster must see them there).
     *
     * @param remote {@code sc://HOST:PORT}
     * @throws IllegalArgumentException if the engine is not installed (its directory is named)
     * @throws Exception if the server cannot be reached or cannot read the files
     */
    public static SqlEngine open(String remote, TraceFolders folders) throws Exception {
        URLClassLoader loader = loader();
        Map<String, List<String>> tables = new LinkedHashMap<>();
        for (String table : Query.TABLES) {
            tables.put(table, folders.files().get(table).stream().map(p -> p.toAbsolutePath().toString()).toList());
        }
        Thread thread = Thread.currentThread();
        ClassLoader context = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        try {
            SqlEngine engine = (SqlEngine) Class.forName(ENGINE, true, loader)
                    .getMethod("open", String.class, Map.class).invoke(null, remote, tables);
            return new SqlEngine() {
                @Override
                public ResultTable run(Query analysis) throws Exception {
                    ClassLoader before = thread.getContextClassLoader();
                    thread.setContextClassLoader(loader);
                    try {
                        return engine.run(analysis);
                    } finally {
                        thread.setContextClassLoader(before);
                    }
                }

                @Override
                public void close() throws Exception {
                    engine.close();
                }
            };
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause() instanceof Exception x ? x : e;
        } finally {
            thread.setContextClassLoader(context);
        }
    }

    private static URLClassLoader loader;

    /**
     * The engine's class loader, made once and never closed: the Connect client leaves threads and shutdown hooks
     * behind that load its classes until the JVM ends.
     */
    private static synchronized URLClassLoader loader() throws java.io.IOException {
        if (loader != null) {
            return loader;
        }
        Path lib = library();
        List<URL> urls = new ArrayList<>();
        String classes = System.getProperty(CLASSES_PROPERTY);
        if (classes != null) {
            urls.add(Path.of(classes).toUri().toURL());
        }
        try (Stream<Path> jars = Files.list(lib)) {
            for (Path jar : jars.filter(j -> j.toString().endsWith(".jar")).sorted().toList()) {
                urls.add(jar.toUri().toURL());
            }
        }
        loader = new URLClassLoader("vantage-analysis-spark", urls.toArray(URL[]::new),
                new AnalysisOnly(SparkConnect.class.getClassLoader()));
        return loader;
    }

    /** The engine's jar directory: the system property's, else {@code lib/analysis-spark} beside this library's. */
    static Path library() {
        String given = System.getProperty(LIB_PROPERTY);
        Path lib;
        if (given != null) {
            lib = Path.of(given);
        } else {
            try {
                Path jar = Path.of(SparkConnect.class.getProtectionDomain().getCodeSource().getLocation().toURI());
                lib = jar.getParent().resolveSibling("analysis-spark");
            } catch (java.net.URISyntaxException | RuntimeException e) {
                throw new IllegalArgumentException("cannot find lib/analysis-spark: " + e.getMessage());
            }
        }
        if (!Files.isDirectory(lib)) {
            throw new IllegalArgumentException("the spark engine is not installed: " + lib
                    + " is missing (it comes with the full distribution)");
        }
        return lib;
    }

    /** Shows a child loader the analysis library's classes (not the engine's own) and the JDK, nothing else. */
    private static final class AnalysisOnly extends ClassLoader {
        private final ClassLoader analysis;

        AnalysisOnly(ClassLoader analysis) {
            super("vantage-analysis-api", ClassLoader.getPlatformClassLoader());
            this.analysis = analysis;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (name.startsWith("dev.vantage.analysis.") && !name.startsWith("dev.vantage.analysis.spark.")) {
                return analysis.loadClass(name);
            }
            return super.loadClass(name, resolve);
        }
    }
}
