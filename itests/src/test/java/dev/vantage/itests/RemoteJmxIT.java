package dev.vantage.itests;

import static dev.vantage.itests.LauncherProcess.refused;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The remote JMX port of a served platform: opened only when asked, and then only with a password and TLS. A
 * client that trusts the platform's certificate and knows a password reaches the on-demand profiler; a wrong
 * password is refused; asking for a port without authentication and TLS is refused before the platform boots.
 */
public class RemoteJmxIT {

    private static final Path FULL = Distributions.home("full");
    private static final String STORE_PASSWORD = "vantage-test";

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private static Path java(String tool) {
        return Paths.get(System.getProperty("java.home"), "bin", tool);
    }

    private static String run(long seconds, String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertTrue(String.join(" ", command) + " did not end", p.waitFor(seconds, TimeUnit.SECONDS));
        return p.exitValue() + ": " + out;
    }

    @Test
    public void aRemotePortServesTheProfilerOnlyWithAPasswordOverTls() throws Exception {
        Path dir = tmp.newFolder("jmx").toPath();
        Path store = dir.resolve("platform.p12");
        String made = run(60, java("keytool").toString(), "-genkeypair", "-alias", "vantage", "-keyalg", "RSA",
                "-keysize", "2048", "-dname", "CN=localhost", "-ext", "SAN=dns:localhost,ip:127.0.0.1",
                "-validity", "2", "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass",
                STORE_PASSWORD, "-keypass", STORE_PASSWORD);
        assertTrue(made, made.startsWith("0: "));
        Path ssl = Files.writeString(dir.resolve("ssl.properties"), "javax.net.ssl.keyStore=" + store
                + "\njavax.net.ssl.keyStorePassword=" + STORE_PASSWORD + "\njavax.net.ssl.keyStoreType=PKCS12\n");
        Path passwords = Files.writeString(dir.resolve("jmx.password"), "monitor s3cret\n");
        Files.setPosixFilePermissions(passwords, PosixFilePermissions.fromString("rw-------"));
        Path access = Files.writeString(dir.resolve("jmx.access"), "monitor readwrite\n");
        Path deploy = tmp.newFolder("deploy").toPath();
        Files.setPosixFilePermissions(deploy, PosixFilePermissions.fromString("rwxr-xr-x"));
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }

        assertEquals("vantage: --jmx-password-file " + Files.writeString(dir.resolve("open.password"), "x y\n")
                + " must be readable by its owner only (chmod 600), as the JDK's agent requires",
                refused(FULL, "serve", "--deploy-dir", deploy.toString(), "--jmx-port", Integer.toString(port),
                        "--jmx-password-file", dir.resolve("open.password").toString(), "--jmx-access-file",
                        access.toString(), "--jmx-ssl-config", ssl.toString()));

        try (LauncherProcess serve = LauncherProcess.start(FULL, "serve", "--workload", "matmul", "--deploy-dir",
                deploy.toString(), "--jmx-port", Integer.toString(port), "--jmx-password-file", passwords.toString(),
                "--jmx-access-file", access.toString(), "--jmx-ssl-config", ssl.toString())) {
            serve.awaitLine("vantage: remote JMX on port " + port + ", with authentication");
            serve.awaitLine("serving matmul");
            String cp = System.getProperty("java.class.path");
            String trust = "-Djavax.net.ssl.trustStore=" + store;
            String trustPassword = "-Djavax.net.ssl.trustStorePassword=" + STORE_PASSWORD;
            String ok = run(60, java("java").toString(), trust, trustPassword, "-cp", cp,
                    RemoteJmxProbe.class.getName(), Integer.toString(port), "monitor", "s3cret");
            assertTrue(ok, ok.startsWith("0: idle") && ok.contains("steps marked: "));
            String wrong = run(60, java("java").toString(), trust, trustPassword, "-cp", cp,
                    RemoteJmxProbe.class.getName(), Integer.toString(port), "monitor", "guess");
            assertTrue(wrong, wrong.startsWith("3: refused: Authentication failed!"));
        }
    }

    @Test
    public void aPortWithoutAuthenticationAndTlsIsRefused() throws Exception {
        assertEquals("vantage: --jmx-port opens a remote port only with authentication and TLS: give"
                + " --jmx-password-file, --jmx-access-file and --jmx-ssl-config (see docs/on-demand.md)",
                refused(FULL, "serve", "--jmx-port", "9999"));
        assertEquals("vantage: serve: '--jmx-port': '0' is out of range (1 to 65535); see 'vantage serve --help'",
                refused(FULL, "serve", "--jmx-port", "0"));
    }
}
