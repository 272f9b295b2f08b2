package dev.vantage.launcher.platform;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.osgi.framework.BundleException;

/** FileInstall's records become one line each, and those DeployChecker reports itself none. */
public class FileInstallLogTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private static LogRecord record(Level level, String message, Throwable thrown) {
        LogRecord r = new LogRecord(level, message);
        r.setThrown(thrown);
        return r;
    }

    @Test
    public void whatDeployCheckerReportsIsLeftToIt() throws Exception {
        Path dir = tmp.getRoot().toPath();
        FileInstallLog log = new FileInstallLog(System.err, dir);
        // a bundle whose imports do not resolve: DeployChecker names the packages and their providers
        assertNull(log.line(record(Level.SEVERE, "Error while starting bundle: file:" + dir + "/broken.jar",
                new BundleException("Unable to resolve com.acme.broken", BundleException.RESOLVE_ERROR))));
        // a .cfg that does not parse: DeployChecker says so
        Path cfg = Files.writeString(dir.resolve("x.cfg"), "iterations=\\uZZZZ\n");
        assertNull(log.line(record(Level.SEVERE, "Failed to install artifact: " + cfg,
                new IllegalArgumentException("Unable to parse unicode value: ZZZZ"))));
    }

    @Test
    public void everythingElseIsOneLineWithItsCause() throws Exception {
        Path dir = tmp.getRoot().toPath();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        FileInstallLog.install(err, dir);
        // as FileInstall logs it, through java.util.logging with the exception and its stack trace
        Logger.getLogger(FileInstallLog.LOGGER).log(Level.SEVERE, "Error while starting bundle: file:" + dir
                + "/plugin.jar", new BundleException("Activator start error in bundle com.acme.plugin [33].",
                BundleException.ACTIVATOR_ERROR, new IllegalStateException("no licence\nat line 2")));
        assertEquals("vantage: deploy: Error while starting bundle: file:" + dir + "/plugin.jar (no licence at line"
                + " 2); the platform goes on (deploy directory " + dir + ")\n",
                bytes.toString(StandardCharsets.UTF_8).replace(System.lineSeparator(), "\n"));
    }
}
