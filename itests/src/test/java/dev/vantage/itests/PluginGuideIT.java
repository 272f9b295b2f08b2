package dev.vantage.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The plugin guide's commands (docs/plugin-guide.md, "From archetype to hot deploy in five commands") run verbatim,
 * as the page has them, in bash, from a directory holding the clone as {@code vantage/}: generate, build with the
 * contract suite, start a minimal platform, hot-deploy, and the prompt's commands, then the trace they promise is
 * read back. Step 1 ({@code mvn install}) would install into the local repository this build uses: its result is
 * taken from the SDK the device archetype's integration test staged, in a local repository of the test's own (a
 * {@code user.home} of its own), with everything else read from the build's local repository, offline.
 * {@code .ci/plugin-guide} runs all five, step 1 included, with an empty local repository and Maven Central.
 */
public class PluginGuideIT {

    private static final Path REPO = Paths.get("..").toAbsolutePath().normalize();
    private static final Path GUIDE = REPO.resolve("docs/plugin-guide.md");
    private static final String STEP_1 = "(cd vantage && mvn -B install -DskipTests)";

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    /** The fenced blocks of the guide's five-command section: the commands, then the prompt's. */
    static List<List<String>> blocks() throws IOException {
        return blocks("## From archetype to hot deploy in five commands");
    }

    /** The fenced blocks of one section of the guide, each a list of its commands. */
    static List<List<String>> blocks(String heading) throws IOException {
        String text = Files.readString(GUIDE, StandardCharsets.UTF_8);
        int from = text.indexOf(heading);
        int to = text.indexOf("\n## ", from + 1);
        assertTrue("the guide has its section " + heading, from >= 0 && to > from);
        List<List<String>> blocks = new ArrayList<>();
        List<String> current = null;
        StringBuilder continued = new StringBuilder();
        for (String line : text.substring(from, to).split("\n")) {
            if (line.startsWith("```")) {
                if (current == null) {
                    current = new ArrayList<>();
                } else {
                    blocks.add(current);
                    current = null;
                }
                continue;
            }
            if (current == null) {
                continue;
            }
            // a command goes on after a backslash; a comment starts at '#' after a space
            String command = line.replaceFirst("\\s+#.*$", "");
            if (command.endsWith("\\")) {
                continued.append(command, 0, command.length() - 1);
                continue;
            }
            continued.append(command);
            if (!continued.toString().isBlank()) {
                current.add(continued.toString().trim().replaceAll("\\s+", " "));
            }
            continued.setLength(0);
        }
        return blocks;
    }

    @Test
    public void theGuidesCommandsRunVerbatimOnTheMinimalDistribution() throws Exception {
        List<List<String>> blocks = blocks();
        List<String> commands = blocks.get(0);
        List<String> prompt = blocks.get(1);
        assertEquals(commands.toString(), 5, commands.size());
        assertEquals(STEP_1, commands.get(0));

        Path work = tmp.newFolder("guide").toPath();
        Files.createSymbolicLink(work.resolve("vantage"), REPO);
        Map<String, String> env = mavenOf(stagedSdk(work.resolve("home")));

        try (LauncherProcess generate = LauncherProcess.bash(work, env, commands.get(1))) {
            int code = generate.awaitExit(300);
            assertEquals(generate.output(), 0, code);
        }
        try (LauncherProcess build = LauncherProcess.bash(work, env, commands.get(2))) {
            int code = build.awaitExit(600);
            assertEquals(build.output(), 0, code);
            assertTrue(build.output(), build.output().contains("Tests run: ")
                    && !build.output().contains("Tests run: 0,"));
        }
        Path jar = work.resolve("acme-device/target/acme-device-0.1.0.jar");
        assertTrue(Files.isRegularFile(jar));
        checkImportRanges(jar);

        try (LauncherProcess shell = LauncherProcess.bash(work, env, commands.get(3))) {
            shell.awaitLine("backend registered: cpu");
            try (LauncherProcess deploy = LauncherProcess.bash(work, env, commands.get(4))) {
                int code = deploy.awaitExit(60);
                assertEquals(deploy.output(), 0, code);
            }
            for (String promised : promisedLines()) {
                awaitOutput(shell, promised);
            }
            for (String command : prompt) {
                shell.send(command);
            }
            String written = shell.awaitLine("trace written: ");
            shell.send("stop 0");
            int code = shell.awaitExit();
            assertEquals(shell.output(), 0, code);
            Matcher m = Pattern.compile("trace written: (\\S+)").matcher(written);
            assertTrue(written, m.find());
            Path trace = Paths.get(m.group(1));
            assertEquals(work.resolve("profiles").toRealPath(), trace.getParent().toRealPath());
            checkTrace(trace);
            assertFalse(shell.output(), shell.output().contains("\tat "));
        }
    }

    /**
     * What step 1 leaves in ~/.m2, as the build staged it: a user.home of its own whose local repository holds the
     * SDK and the archetype, with the build's local repository behind it as a file: repository, offline.
     */
    private static Path stagedSdk(Path home) throws IOException {
        return stagedSdk(home, "archetype.device.repo", "vantage-device-archetype");
    }

    /** The same, from the SDK an archetype's integration test staged, named by a system property. */
    static Path stagedSdk(Path home, String property, String archetype) throws IOException {
        Path staged = Paths.get(System.getProperty(property, "missing"));
        assertTrue("no " + staged + "; the archetype's integration test stages it", Files.isDirectory(
                staged.resolve("dev/vantage/" + archetype)));
        Path repository = home.resolve(".m2/repository");
        try (Stream<Path> files = Files.walk(staged)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Path to = repository.resolve(staged.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(f, to, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        // 'mvn archetype:generate' names the plugin by its prefix: Maven Central's metadata maps it to
        // maven-archetype-plugin, whose release is the one this build uses. Online, step 2 downloads the two files;
        // offline, they are what a first online run would have left (under both repositories' ids)
        String plugin = System.getProperty("archetype.plugin.version", "missing");
        for (String id : List.of("central", "build-local-repository")) {
            Path group = Files.createDirectories(repository.resolve("org/apache/maven/plugins"));
            Files.writeString(group.resolve("maven-metadata-" + id + ".xml"), "<metadata><plugins><plugin>"
                    + "<prefix>archetype</prefix><artifactId>maven-archetype-plugin</artifactId></plugin></plugins>"
                    + "</metadata>\n");
            Path artifact = Files.createDirectories(group.resolve("maven-archetype-plugin"));
            Files.writeString(artifact.resolve("maven-metadata-" + id + ".xml"), "<metadata><groupId>"
                    + "org.apache.maven.plugins</groupId><artifactId>maven-archetype-plugin</artifactId><versioning>"
                    + "<latest>" + plugin + "</latest><release>" + plugin + "</release><versions><version>" + plugin
                    + "</version></versions></versioning></metadata>\n");
        }
        String buildRepository = Paths.get(System.getProperty("org.ops4j.pax.url.mvn.localRepository"))
                .toUri().toString();
        String repo = "<id>build-local-repository</id><url>" + buildRepository + "</url>"
                + "<releases><checksumPolicy>ignore</checksumPolicy></releases><snapshots><enabled>false</enabled>"
                + "</snapshots>";
        Files.writeString(home.resolve(".m2/settings.xml"), "<settings><offline>true</offline><profiles><profile>"
                + "<id>build</id><repositories><repository>" + repo + "</repository></repositories>"
                + "<pluginRepositories><pluginRepository>" + repo + "</pluginRepository></pluginRepositories>"
                + "</profile></profiles><activeProfiles><activeProfile>build</activeProfile></activeProfiles>"
                + "</settings>\n");
        return home;
    }

    /** Maven with that home: MAVEN_OPTS reaches every mvn the commands start, leaving the commands as they are. */
    static Map<String, String> mavenOf(Path home) {
        return Map.of("MAVEN_OPTS", "-Duser.home=" + home + " -Daether.offline.protocols=file");
    }

    /** The lines the guide says the shell prints once the bundles are deployed. */
    private static List<String> promisedLines() throws IOException {
        String text = Files.readString(GUIDE, StandardCharsets.UTF_8);
        List<String> lines = new ArrayList<>();
        Matcher m = Pattern.compile("`((?:backend|device|exporter) registered: [^`]+)`").matcher(text);
        while (m.find()) {
            lines.add(m.group(1));
        }
        assertTrue(lines.toString(), lines.size() >= 3);
        return lines;
    }

    private static void awaitOutput(LauncherProcess p, String text) throws InterruptedException {
        while (!p.output().contains(text)) {
            p.awaitLine(" registered: ");
        }
    }

    /** The import ranges the guide quotes are those of the generated bundle as the build makes it. */
    private static void checkImportRanges(Path jar) throws IOException {
        String imports;
        try (JarFile j = new JarFile(jar.toFile())) {
            imports = j.getManifest().getMainAttributes().getValue("Import-Package");
        }
        String text = Files.readString(GUIDE, StandardCharsets.UTF_8);
        int at = text.indexOf("A generated device bundle imports, for example,");
        assertTrue(at >= 0);
        String sentence = text.substring(at, text.indexOf("(read from", at));
        Matcher m = Pattern.compile("`(dev\\.vantage\\.[a-z.]+;version=\"[^\"]+\")`").matcher(sentence);
        int quoted = 0;
        while (m.find()) {
            quoted++;
            assertTrue(m.group(1) + " is not what the bundle imports: " + imports, imports.contains(m.group(1)));
        }
        assertEquals(sentence, 3, quoted);
    }

    /** The trace holds acme kernels, linked to the CPU ops that launched them (Chrome flow events). */
    private static void checkTrace(Path trace) throws IOException {
        JsonNode root;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(trace))) {
            root = new ObjectMapper().readTree(in);
        }
        int kernels = 0;
        int flows = 0;
        for (JsonNode e : root.path("traceEvents")) {
            if (e.path("name").asText().startsWith("acme_") && e.path("cat").asText().equals("kernel")) {
                kernels++;
            }
            if (e.path("cat").asText().equals("ac2g")) {
                flows++;
            }
        }
        assertTrue("acme kernels: " + kernels, kernels >= 10);
        assertTrue("flows: " + flows, flows >= kernels);
    }
}
