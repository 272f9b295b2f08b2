package dev.vantage.itests;

import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.frameworkProperty;
import static org.ops4j.pax.exam.CoreOptions.junitBundles;
import static org.ops4j.pax.exam.CoreOptions.systemPackage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.ops4j.pax.exam.Option;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;

import dev.vantage.tensor.workload.Workload;

import dev.vantage.cli.LaunchedCommand;

/** Where the built distributions are, and Pax Exam options that boot one of them. */
final class Distributions {

    static final Path DIST = Paths.get(System.getProperty("dist.dir", "../features/target/dist")).toAbsolutePath();

    private Distributions() {
    }

    static Path home(String name) {
        return DIST.resolve(name);
    }

    /**
     * Every Vantage bundle the build made, by symbolic name: the full distribution's, the launcher's (the command
     * tree, in its {@code lib/}, which the framework exports to the platform) and the two contract suites, which no
     * distribution holds (copied to {@code target/sdk-jars}).
     */
    static java.util.Map<String, Path> vantageJars() throws IOException {
        java.util.Map<String, Path> jars = new java.util.TreeMap<>();
        for (Path dir : List.of(home("full").resolve("bundles"), home("full").resolve("lib"),
                Paths.get("target", "sdk-jars"))) {
            if (!Files.isDirectory(dir)) {
                throw new IllegalStateException("missing " + dir.toAbsolutePath() + "; build the distributions first");
            }
            try (Stream<Path> files = Files.list(dir)) {
                for (Path jar : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".jar"))::iterator) {
                    try (java.util.jar.JarFile f = new java.util.jar.JarFile(jar.toFile())) {
                        String bsn = f.getManifest() == null ? null
                                : f.getManifest().getMainAttributes().getValue("Bundle-SymbolicName");
                        if (bsn != null && bsn.startsWith("dev.vantage.")) {
                            jars.put(bsn.split(";")[0].trim(), jar);
                        }
                    }
                }
            }
        }
        return jars;
    }

    /** The jar of a bundle in the full distribution, by file-name prefix such as {@code exporter-chrome-}. */
    static Path fullBundle(String prefix) throws IOException {
        try (Stream<Path> s = Files.list(home("full").resolve("bundles"))) {
            return s.filter(p -> p.getFileName().toString().startsWith(prefix)).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no bundle " + prefix + "* in " + home("full")));
        }
    }

    /** Boots exactly the bundles of a distribution, with FileInstall watching {@code deployDir}. */
    static Option[] options(String name, Path deployDir) throws IOException {
        List<Option> opts = new ArrayList<>();
        try (Stream<Path> jars = Files.list(home(name).resolve("bundles"))) {
            for (Path jar : jars.filter(p -> p.toString().endsWith(".jar")).sorted().collect(Collectors.toList())) {
                opts.add(bundle(jar.toUri().toString()));
            }
        }
        Files.createDirectories(deployDir);
        opts.add(frameworkProperty("felix.fileinstall.dir").value(deployDir.toString()));
        opts.add(frameworkProperty("felix.fileinstall.poll").value("100"));
        opts.add(frameworkProperty("felix.fileinstall.noInitialDelay").value("true"));
        opts.add(frameworkProperty("felix.fileinstall.enableConfigSave").value("false"));
        opts.add(frameworkProperty("gosh.args").value("--nointeractive"));
        // the board's HTTP service stays off in tests of the platform, as it does outside 'vantage board'
        opts.add(frameworkProperty("org.apache.felix.http.enable").value("false"));
        opts.add(frameworkProperty("org.apache.felix.http.log.jul").value("true"));
        // as the launcher boots a distribution: the command tree's package comes from the class path (this test's,
        // where the launcher has its own), exported by the framework, since no distribution holds it as a bundle
        opts.add(systemPackage(LaunchedCommand.class.getPackageName() + ";version="
                + LaunchedCommand.packageVersion()));
        opts.add(junitBundles());
        return opts.toArray(new Option[0]);
    }

    /** Returns the registered workload named {@code name}, failing the test when there is none. */
    static Workload workload(BundleContext context, String name) throws InvalidSyntaxException {
        for (ServiceReference<Workload> ref : context.getServiceReferences(Workload.class, null)) {
            Workload w = context.getService(ref);
            if (w.name().equals(name)) {
                return w;
            }
        }
        throw new AssertionError("no workload " + name);
    }

    /** Waits until a condition holds, checking every 20 ms; fails naming the condition after 20 s. */
    static void await(BooleanSupplier condition, String what) throws InterruptedException {
        await(condition, 20_000, what);
    }

    /** Waits until a condition holds, checking every 20 ms; fails naming the condition after {@code millis}. */
    static void await(BooleanSupplier condition, long millis, String what) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + millis + " ms: " + what);
            }
            Thread.sleep(20);
        }
    }
}
