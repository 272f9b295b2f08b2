package dev.vantage.launcher.platform;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** The remote JMX flags are checked before the platform boots, the TLS key store included. */
public class RemoteJmxTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Test
    public void aTlsConfigurationWithoutAKeyStoreIsRefusedBeforeBoot() throws Exception {
        Path dir = tmp.getRoot().toPath();
        Path password = Files.writeString(dir.resolve("jmx.password"), "admin secret\n");
        Files.setPosixFilePermissions(password, PosixFilePermissions.fromString("rw-------"));
        Path access = Files.writeString(dir.resolve("jmx.access"), "admin readwrite\n");
        Path ssl = Files.writeString(dir.resolve("jmx-ssl.properties"), "javax.net.ssl.keyStorePassword=x\n");
        assertEquals("--jmx-ssl-config " + ssl + " names no javax.net.ssl.keyStore: the port serves its certificate"
                + " from it (see docs/on-demand.md)", assertThrows(IllegalArgumentException.class,
                () -> RemoteJmx.check(9010, password, access, ssl)).getMessage());
        Files.writeString(ssl, "javax.net.ssl.keyStore=" + dir.resolve("missing.p12") + "\n");
        assertEquals("--jmx-ssl-config " + ssl + ": key store " + dir.resolve("missing.p12") + ": no such file",
                assertThrows(IllegalArgumentException.class, () -> RemoteJmx.check(9010, password, access, ssl))
                        .getMessage());
        Files.writeString(dir.resolve("garbage.p12"), "not a key store");
        Files.writeString(ssl, "javax.net.ssl.keyStore=" + dir.resolve("garbage.p12") + "\n");
        String message = assertThrows(IllegalArgumentException.class,
                () -> RemoteJmx.check(9010, password, access, ssl)).getMessage();
        assertTrue(message, message.startsWith("--jmx-ssl-config " + ssl + ": key store " + dir.resolve("garbage.p12")
                + ": "));
        assertTrue(message, !message.contains("\n"));
    }
}
