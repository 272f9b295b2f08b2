package dev.vantage.launcher;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class LauncherArgsTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Test
    public void launcherFlagsAreTakenOutAndTheRestGoesToThePlatform() {
        LauncherArgs a = LauncherArgs.parse(new String[] {"serve", "--distribution", "minimal", "--deploy-dir",
            "/tmp/d"});
        assertEquals("minimal", a.distribution);
        assertEquals(Path.of("/tmp/d"), a.deployDir);
        assertEquals(LauncherArgs.Mode.SERVE, a.mode);
        assertEquals(List.of("serve"), a.platformArgs);

        LauncherArgs run = LauncherArgs.parse(new String[] {"--distribution", "full", "run", "matmul", "--steps",
            "2"});
        assertEquals(LauncherArgs.Mode.COMMAND, run.mode);
        assertEquals(List.of("run", "matmul", "--steps", "2"), run.platformArgs);
        assertNull(run.deployDir);

        assertEquals(LauncherArgs.Mode.SHELL, LauncherArgs.parse(new String[] {"shell"}).mode);
        assertEquals(LauncherArgs.Mode.COMMAND, LauncherArgs.parse(new String[] {"serve", "--help"}).mode);
    }

    @Test
    public void badLauncherFlagsAreNamed() {
        assertEquals("--distribution needs a value",
                assertThrows(IllegalArgumentException.class,
                        () -> LauncherArgs.parse(new String[] {"bundles", "--distribution"})).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> LauncherArgs.parse(new String[] {"--distribution", "../x", "bundles"})).getMessage()
                .contains("'../x'"));
        assertEquals("--deploy-dir applies to 'serve' and 'shell' only",
                assertThrows(IllegalArgumentException.class,
                        () -> LauncherArgs.parse(new String[] {"run", "m", "--deploy-dir", "d"})).getMessage());
    }

    @Test
    public void deployCheckerRecognisesBundlesJunkAndBrokenConfigurations() throws Exception {
        Path junk = tmp.newFile("junk.jar").toPath();
        Files.writeString(junk, "not a zip");
        assertTrue(DeployChecker.jarProblem(junk).startsWith("not a readable jar"));

        Path plain = tmp.getRoot().toPath().resolve("plain.jar");
        writeJar(plain, null);
        assertEquals("not an OSGi bundle (its manifest has no Bundle-SymbolicName)", DeployChecker.jarProblem(plain));

        Path bundle = tmp.getRoot().toPath().resolve("bundle.jar");
        writeJar(bundle, "dev.example.plugin");
        assertNull(DeployChecker.jarProblem(bundle));

        Path cfg = tmp.newFile("a.cfg").toPath();
        Files.writeString(cfg, "key=\\u12zz\n");
        assertTrue(DeployChecker.cfgProblem(cfg).startsWith("not a valid .cfg properties file"));
        Files.writeString(cfg, "maxEvents=100\n");
        assertNull(DeployChecker.cfgProblem(cfg));
    }

    private static void writeJar(Path path, String symbolicName) throws Exception {
        Manifest m = new Manifest();
        m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        if (symbolicName != null) {
            m.getMainAttributes().putValue("Bundle-SymbolicName", symbolicName);
        }
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(path), m)) {
            out.flush();
        }
    }
}
