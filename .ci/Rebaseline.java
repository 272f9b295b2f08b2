import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.LocalDateTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * Records built bundles as the released API that bnd-baseline-maven-plugin checks package versions against.
 *
 * <p>Run by {@code .ci/rebaseline} after it has built the modules: {@code java .ci/Rebaseline.java <baseline dir>
 * [--prune] <module dir>...}. For each module it takes the bundle in {@code target/}, keeps what bnd's baselining reads
 * (the manifest, the classes of the exported packages and the supertypes they inherit members from; not resources,
 * not the other private classes) and writes it to the Maven-layout repository {@code <baseline dir>} as
 * {@code dev.vantage.baseline:<artifactId>:<bundle version>-<content hash>}, the only version of that artifact there.
 * The hash makes a re-recorded bundle a new coordinate, so no local repository can keep serving an older copy. Then it
 * rewrites {@code <baseline dir>/README.md}, the table of every recorded bundle and package version.
 *
 * <p>With {@code --prune}, baselines of artifacts not among the modules are deleted. Entries are written sorted with a
 * fixed time, so recording an unchanged bundle again changes no file.
 */
public final class Rebaseline {
    private static final String GROUP = "dev.vantage.baseline";
    private static final LocalDateTime ENTRY_TIME = LocalDateTime.of(1980, 2, 1, 0, 0);

    private Rebaseline() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: java .ci/Rebaseline.java <baseline dir> [--prune] <module dir>...");
            System.exit(2);
        }
        Path repo = Path.of(args[0]);
        Path groupDir = repo.resolve(GROUP.replace('.', '/'));
        boolean prune = false;
        List<Path> modules = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            if (args[i].equals("--prune")) {
                prune = true;
            } else {
                modules.add(Path.of(args[i]));
            }
        }
        Set<String> recorded = new TreeSet<>();
        for (Path module : modules) {
            recorded.add(record(groupDir, module));
        }
        if (prune && Files.isDirectory(groupDir)) {
            try (Stream<Path> artifacts = Files.list(groupDir)) {
                for (Path artifact : artifacts.toList()) {
                    if (!recorded.contains(artifact.getFileName().toString())) {
                        deleteTree(artifact);
                        System.out.println("removed baseline of " + artifact.getFileName());
                    }
                }
            }
        }
        writeIndex(repo, groupDir);
    }

    /** Writes the stripped bundle of one module and returns its artifactId. */
    private static String record(Path groupDir, Path module) throws IOException {
        Path bundle = findBundle(module);
        try (JarFile jar = new JarFile(bundle.toFile())) {
            Manifest manifest = jar.getManifest();
            Properties pom = pomProperties(jar);
            String artifactId = pom.getProperty("artifactId");
            String bundleVersion = manifest.getMainAttributes().getValue("Bundle-Version");
            List<String> exports = exportedPackages(manifest.getMainAttributes().getValue("Export-Package"));
            if (exports.isEmpty()) {
                throw new IllegalStateException(bundle + " exports no package: nothing to baseline");
            }

            Map<String, byte[]> classes = new TreeMap<>();
            jar.stream()
                .filter(e -> e.getName().endsWith(".class") && !e.getName().startsWith("META-INF/"))
                .forEach(e -> classes.put(e.getName(), read(jar, e)));
            Set<String> kept = keptClasses(classes, exports);

            Map<String, byte[]> entries = new LinkedHashMap<>();
            entries.put(JarFile.MANIFEST_NAME, read(jar, jar.getEntry(JarFile.MANIFEST_NAME)));
            for (String name : kept) {
                entries.put(name, classes.get(name));
            }
            String version = bundleVersion + "-" + contentHash(entries);

            Path artifactDir = groupDir.resolve(artifactId);
            deleteTree(artifactDir);
            Path versionDir = Files.createDirectories(artifactDir.resolve(version));
            Path target = versionDir.resolve(artifactId + "-" + version + ".jar");
            Files.write(target, zip(entries));
            Files.writeString(artifactDir.resolve("maven-metadata.xml"), metadata(artifactId, version));
            System.out.printf("recorded %s %s (%d of %d classes, %d bytes) from %s%n", artifactId, bundleVersion,
                kept.size(), classes.size(), Files.size(target), bundle);
            return artifactId;
        }
    }

    /** The module's bundle: the one jar in target/ with a Bundle-SymbolicName (not the sources or javadoc jar). */
    private static Path findBundle(Path module) throws IOException {
        List<Path> bundles = new ArrayList<>();
        try (Stream<Path> files = Files.list(module.resolve("target"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".jar")).toList()) {
                try (JarFile jar = new JarFile(file.toFile())) {
                    Manifest manifest = jar.getManifest();
                    if (manifest != null && manifest.getMainAttributes().getValue("Bundle-SymbolicName") != null) {
                        bundles.add(file);
                    }
                }
            }
        }
        if (bundles.size() != 1) {
            throw new IllegalStateException("expected one bundle in " + module.resolve("target") + ", found "
                + bundles + "; build the module first");
        }
        return bundles.get(0);
    }

    private static Properties pomProperties(JarFile jar) throws IOException {
        ZipEntry entry = jar.stream()
            .filter(e -> e.getName().startsWith("META-INF/maven/") && e.getName().endsWith("/pom.properties"))
            .findFirst()
            .orElseThrow(() -> new IllegalStateException(jar.getName() + " has no META-INF/maven/**/pom.properties"));
        Properties properties = new Properties();
        try (InputStream in = jar.getInputStream(entry)) {
            properties.load(in);
        }
        return properties;
    }

    /** Package names of an Export-Package header, in header order. */
    static List<String> exportedPackages(String header) {
        return new ArrayList<>(exportedVersions(header).keySet());
    }

    /**
     * Package name to version attribute ("0.0.0" when absent, as in OSGi) of an Export-Package header. Clauses are
     * separated by commas outside quoted attribute values.
     */
    static Map<String, String> exportedVersions(String header) {
        Map<String, String> versions = new LinkedHashMap<>();
        if (header == null) {
            return versions;
        }
        StringBuilder clause = new StringBuilder();
        boolean quoted = false;
        for (char c : (header + ",").toCharArray()) {
            if (c == '"') {
                quoted = !quoted;
            }
            if (c != ',' || quoted) {
                clause.append(c);
                continue;
            }
            String[] parts = clause.toString().split(";");
            String name = parts[0].trim();
            if (!name.isEmpty()) {
                versions.put(name, "0.0.0");
                for (int i = 1; i < parts.length; i++) {
                    String attribute = parts[i].trim();
                    if (attribute.startsWith("version=")) {
                        versions.put(name, attribute.substring("version=".length()).replace("\"", ""));
                    }
                }
            }
            clause.setLength(0);
        }
        return versions;
    }

    /**
     * The classes of the exported packages, plus every class of the bundle they extend or implement, transitively:
     * bnd counts inherited public members as part of an exported type's API, and finds them only in the jar.
     */
    private static Set<String> keptClasses(Map<String, byte[]> classes, List<String> exports) {
        Set<String> exportedDirs = new TreeSet<>();
        for (String p : exports) {
            exportedDirs.add(p.replace('.', '/'));
        }
        Set<String> kept = new TreeSet<>();
        Deque<String> todo = new ArrayDeque<>();
        for (String name : classes.keySet()) {
            int slash = name.lastIndexOf('/');
            if (slash > 0 && exportedDirs.contains(name.substring(0, slash))) {
                kept.add(name);
                todo.add(name);
            }
        }
        while (!todo.isEmpty()) {
            for (String supertype : supertypes(classes.get(todo.remove()))) {
                String file = supertype + ".class";
                if (classes.containsKey(file) && kept.add(file)) {
                    todo.add(file);
                }
            }
        }
        return kept;
    }

    /** Internal names of a class file's superclass and interfaces, read from its constant pool (JVMS 4.1, 4.4). */
    static List<String> supertypes(byte[] classFile) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(classFile))) {
            in.readInt(); // magic
            in.readUnsignedShort(); // minor
            in.readUnsignedShort(); // major
            int count = in.readUnsignedShort();
            String[] utf8 = new String[count];
            int[] classNameIndex = new int[count];
            for (int i = 1; i < count; i++) {
                int tag = in.readUnsignedByte();
                switch (tag) {
                    case 1 -> utf8[i] = in.readUTF();
                    case 7 -> classNameIndex[i] = in.readUnsignedShort();
                    case 8, 16, 19, 20 -> in.readUnsignedShort();
                    case 15 -> in.skipNBytes(3);
                    case 3, 4, 9, 10, 11, 12, 17, 18 -> in.readInt();
                    case 5, 6 -> {
                        in.readLong();
                        i++; // long and double take two slots
                    }
                    default -> throw new IllegalArgumentException("unknown constant pool tag " + tag);
                }
            }
            in.readUnsignedShort(); // access flags
            in.readUnsignedShort(); // this class
            List<String> result = new ArrayList<>();
            int superClass = in.readUnsignedShort();
            if (superClass != 0) {
                result.add(utf8[classNameIndex[superClass]]);
            }
            int interfaces = in.readUnsignedShort();
            for (int i = 0; i < interfaces; i++) {
                result.add(utf8[classNameIndex[in.readUnsignedShort()]]);
            }
            return result;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** First 10 hex digits of the SHA-256 over entry names and contents: independent of how the zip compresses. */
    private static String contentHash(Map<String, byte[]> entries) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            for (Map.Entry<String, byte[]> e : entries.entrySet()) {
                digest.update(e.getKey().getBytes(StandardCharsets.UTF_8));
                digest.update((byte) 0);
                digest.update(e.getValue());
            }
            return HexFormat.of().formatHex(digest.digest()).substring(0, 10);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] zip(Map<String, byte[]> entries) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream out = new ZipOutputStream(bytes)) {
            out.setLevel(9);
            for (Map.Entry<String, byte[]> e : entries.entrySet()) {
                ZipEntry entry = new ZipEntry(e.getKey());
                entry.setTimeLocal(ENTRY_TIME);
                out.putNextEntry(entry);
                out.write(e.getValue());
                out.closeEntry();
            }
        }
        return bytes.toByteArray();
    }

    private static String metadata(String artifactId, String version) {
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <metadata>
              <groupId>%s</groupId>
              <artifactId>%s</artifactId>
              <versioning>
                <latest>%s</latest>
                <release>%s</release>
                <versions>
                  <version>%s</version>
                </versions>
              </versioning>
            </metadata>
            """.formatted(GROUP, artifactId, version, version, version);
    }

    /** Rewrites README.md: what the directory is, and every recorded bundle with its exported package versions. */
    private static void writeIndex(Path repo, Path groupDir) throws IOException {
        StringBuilder table = new StringBuilder();
        table.append("| artifact | bundle | bundle version | exported package | package version |\n");
        table.append("|---|---|---|---|---|\n");
        List<Path> jars = new ArrayList<>();
        if (Files.isDirectory(groupDir)) {
            try (Stream<Path> files = Files.walk(groupDir)) {
                files.filter(f -> f.toString().endsWith(".jar")).sorted(Comparator.naturalOrder()).forEach(jars::add);
            }
        }
        for (Path path : jars) {
            try (JarFile jar = new JarFile(path.toFile())) {
                Attributes main = jar.getManifest().getMainAttributes();
                String artifactId = path.getParent().getParent().getFileName().toString();
                String bsn = main.getValue("Bundle-SymbolicName").split(";", 2)[0];
                String version = main.getValue("Bundle-Version");
                Map<String, String> packages = new TreeMap<>(exportedVersions(main.getValue("Export-Package")));
                for (Map.Entry<String, String> p : packages.entrySet()) {
                    table.append("| ").append(artifactId).append(" | `").append(bsn).append("` | ").append(version)
                        .append(" | `").append(p.getKey()).append("` | ").append(p.getValue()).append(" |\n");
                }
            }
        }
        String readme = """
            # API baseline

            The bundles below are the last released versions of every bundle that exports packages. On `mvn verify`,
            bnd-baseline-maven-plugin compares each such bundle's exported packages with its copy here and fails when a
            package's version (`@Version` in `package-info.java`) or the bundle's version is lower than the change
            requires. The rules and the release workflow are in `docs/plugin-guide.md` ("Versioning").

            This is a Maven-layout repository (group `dev.vantage.baseline`), declared in the root POM as the
            distribution repository the plugin searches. Each jar holds only what baselining reads: the manifest and
            the classes of the exported packages (with the supertypes they inherit from). Never edit it by hand;
            `.ci/rebaseline` writes it, and this file, at a release.

            """ + table;
        Files.writeString(repo.resolve("README.md"), readme);
    }

    private static byte[] read(JarFile jar, ZipEntry entry) {
        try (InputStream in = jar.getInputStream(entry)) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
