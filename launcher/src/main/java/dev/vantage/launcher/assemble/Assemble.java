package dev.vantage.launcher.assemble;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.stream.Stream;

import dev.vantage.cli.AssembleCommand;
import dev.vantage.cli.LaunchedCommand;
import dev.vantage.launcher.Folders;

/**
 * The {@code features} and {@code assemble} verbs, which need no running platform: list the features of the full
 * distribution, and build a distribution of chosen features (and jars of one's own), resolved by bnd's resolver
 * against the full distribution's bundles, offline. Every input is checked before anything is written; the new
 * distribution is written under a temporary name and renamed when complete.
 */
public final class Assemble {

    /**
     * What the launcher provides the platform, as the shipped bndrun files declare it ({@code launcher.provides}): the
     * command tree's package, which its framework exports at the version of the cli jar this launcher carries, and
     * the parsed command's service.
     */
    private static String provided() {
        return "osgi.wiring.package;osgi.wiring.package=" + LaunchedCommand.class.getPackageName()
                + ";version:Version=" + LaunchedCommand.packageVersion() + ","
                + "osgi.service;objectClass:List<String>='" + LaunchedCommand.class.getName() + "'";
    }

    private Assemble() {
    }

    /** Lists the features: name, version, and each root bundle with the version the full distribution has. */
    public static int features(Path full, PrintStream out) throws Exception {
        Features features = Features.read(full);
        Map<String, String> versions = new HashMap<>();
        for (Path jar : Folders.jars(full.resolve("bundles"), false)) {
            String[] id = identity(jar);
            if (id != null) {
                versions.put(id[0], id[1]);
            }
        }
        for (Map.Entry<String, List<String>> f : features.roots().entrySet()) {
            List<String> bundles = new ArrayList<>();
            f.getValue().forEach(b -> bundles.add(b + " " + versions.getOrDefault(b, "?")));
            out.printf("%-22s %s  %s%n", f.getKey(), features.version(), String.join(", ", bundles));
        }
        return 0;
    }

    /**
     * Runs {@code assemble}; returns the exit code.
     *
     * @throws IllegalArgumentException for bad input (exit code 2), before anything is written
     */
    public static int assemble(AssembleCommand command, Path full, Path launcherJar, PrintStream out)
            throws Exception {
        List<String> featureNames = command.features();
        List<Path> added = command.added();
        Path target = command.out();
        if (Files.exists(target) && (!Files.isDirectory(target) || !isEmpty(target))) {
            throw new IllegalArgumentException("--out " + target + ": exists and is not an empty directory");
        }
        List<String> roots = new ArrayList<>(Features.read(full).rootsOf(featureNames));
        Map<String, Path> byIdentity = new HashMap<>();
        List<File> candidates = new ArrayList<>();
        for (Path jar : Folders.jars(full.resolve("bundles"), false)) {
            index(jar, byIdentity, candidates);
        }
        for (Path jar : added) {
            String[] id = Files.isRegularFile(jar) ? identity(jar) : null;
            if (id == null) {
                throw new IllegalArgumentException("--add " + jar + ": not an OSGi bundle (no Bundle-SymbolicName)");
            }
            index(jar, byIdentity, candidates);
            if (!roots.contains(id[0])) {
                roots.add(id[0]);
            }
        }
        Path framework = Folders.jars(full.resolve("lib"), false).stream()
                .filter(p -> p.getFileName().toString().startsWith("org.apache.felix.framework-")).findFirst()
                .orElseThrow(() -> new IllegalStateException("no framework jar in " + full.resolve("lib")));

        Path work = Files.createTempDirectory("vantage-assemble-");
        List<String> resolved;
        try {
            resolved = resolve(full, launcherJar, candidates, framework.toFile(), roots, work.toFile());
        } finally {
            Folders.deleteTree(work);
        }
        Path partial = target.resolveSibling("." + target.getFileName() + ".assembling-"
                + ProcessHandle.current().pid());
        try {
            write(full, launcherJar, partial, resolved, byIdentity);
            if (Files.exists(target)) {
                Files.delete(target);   // empty, as checked
            }
            Files.move(partial, target);
        } finally {
            Folders.deleteTree(partial);
        }
        out.println("assembled " + target + ": " + resolved.size() + " bundles for " + String.join(", ",
                featureNames) + (added.isEmpty() ? "" : " and " + added.size() + " added") + "; start it with "
                + target.resolve("vantage"));
        return 0;
    }

    @SuppressWarnings("unchecked")
    private static List<String> resolve(Path full, Path launcherJar, List<File> candidates, File framework,
            List<String> roots, File work) throws Exception {
        List<URL> urls = new ArrayList<>();
        urls.add(launcherJar.toUri().toURL());
        for (Path jar : Folders.jars(full.resolve("lib").resolve("assemble"), false)) {
            urls.add(jar.toUri().toURL());
        }
        if (urls.size() == 1) {
            throw new IllegalStateException("bnd's resolver is missing from " + full.resolve("lib/assemble"));
        }
        // bnd and its OSGi API jars in a loader of their own, so that they never meet the framework's classes
        try (URLClassLoader tools = new URLClassLoader(urls.toArray(new URL[0]),
                ClassLoader.getPlatformClassLoader())) {
            Class<?> bnd = Class.forName("dev.vantage.launcher.assemble.BndResolve", true, tools);
            return (List<String>) bnd.getMethod("resolve", List.class, File.class, List.class, String.class,
                    File.class).invoke(null, candidates, framework, roots, provided(), work);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof IllegalStateException unresolved) {
                throw new IllegalArgumentException("assemble: " + unresolved.getMessage() + ", which no bundle of"
                        + " the full distribution or the added jars provides; nothing written");
            }
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    private static void write(Path full, Path launcherJar, Path dir, List<String> resolved,
            Map<String, Path> byIdentity) throws Exception {
        Files.createDirectories(dir.resolve("bundles"));
        Files.createDirectories(dir.resolve("lib"));
        Files.createDirectories(dir.resolve("conf"));
        Files.createDirectories(dir.resolve("deploy"));
        Files.copy(launcherJar, dir.resolve("launcher.jar"));
        for (Path jar : Folders.jars(full.resolve("lib"), false)) {
            Files.copy(jar, dir.resolve("lib").resolve(jar.getFileName()));
        }
        try (Stream<Path> conf = Files.list(full.resolve("conf"))) {
            for (Path file : (Iterable<Path>) conf.filter(Files::isRegularFile)::iterator) {
                Files.copy(file, dir.resolve("conf").resolve(file.getFileName()));
            }
        }
        for (String id : resolved) {
            Path jar = byIdentity.get(id);
            if (jar == null) {
                throw new IllegalStateException("the resolver chose " + id + ", which is no candidate jar");
            }
            Files.copy(jar, dir.resolve("bundles").resolve(jar.getFileName()), StandardCopyOption.REPLACE_EXISTING);
        }
        Path script = dir.resolve("vantage");
        Files.writeString(script, "#!/usr/bin/env bash\n"
                + "# Vantage command line for this assembled distribution. Extra JVM options go in VANTAGE_JAVA_OPTS.\n"
                + "set -euo pipefail\n"
                + script("jit.sh")
                + script("daemon.sh")
                + "launcher=\"$(cd \"$(dirname \"${BASH_SOURCE[0]}\")\" && pwd)/launcher.jar\"\n"
                + "if vantage_daemon_verb \"$@\"; then\n"
                + "    # shellcheck disable=SC2086\n"
                + "    exec java $vantage_daemon_client -cp \"$launcher\" dev.vantage.launcher.daemon.DaemonClient"
                + " \"$@\"\n"
                + "fi\n"
                + "# shellcheck disable=SC2086\n"
                + "exec java $(vantage_jit \"$@\") ${VANTAGE_JAVA_OPTS:-} -jar \"$launcher\" \"$@\"\n");
        try {
            Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        } catch (UnsupportedOperationException e) {
            script.toFile().setExecutable(true);
        }
    }

    /** A shell fragment of the launcher's, as the repository's script sources it: jit.sh, daemon.sh. */
    private static String script(String name) throws IOException {
        try (var in = Assemble.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("the launcher lacks its " + name);
            }
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    private static void index(Path jar, Map<String, Path> byIdentity, List<File> candidates) throws IOException {
        String[] id = identity(jar);
        if (id != null) {
            byIdentity.put(id[0] + ";" + id[1], jar);
            candidates.add(jar.toFile());
        }
    }

    /** Returns a bundle's symbolic name and version, or null for a jar that is not a bundle. */
    static String[] identity(Path jar) throws IOException {
        try (JarFile f = new JarFile(jar.toFile())) {
            Manifest m = f.getManifest();
            String bsn = m == null ? null : m.getMainAttributes().getValue("Bundle-SymbolicName");
            if (bsn == null) {
                return null;
            }
            String version = m.getMainAttributes().getValue("Bundle-Version");
            return new String[] {bsn.split(";")[0].trim(), normalize(version == null ? "0.0.0" : version.trim())};
        } catch (java.util.zip.ZipException e) {
            return null;
        }
    }

    /** As bnd writes versions: major.minor.micro[.qualifier]. */
    private static String normalize(String version) {
        String[] parts = version.split("\\.", 4);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 3; i++) {
            sb.append(i == 0 ? "" : ".").append(i < parts.length ? parts[i] : "0");
        }
        if (parts.length == 4) {
            sb.append('.').append(parts[3]);
        }
        return sb.toString();
    }

    private static boolean isEmpty(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.findAny().isEmpty();
        }
    }
}
