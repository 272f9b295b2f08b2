package dev.vantage.launcher.platform;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.rmi.Remote;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import javax.management.remote.JMXConnectorServer;
import javax.management.remote.JMXConnectorServerFactory;
import javax.management.remote.JMXServiceURL;
import javax.management.remote.rmi.RMIConnectorServer;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.rmi.ssl.SslRMIClientSocketFactory;
import javax.rmi.ssl.SslRMIServerSocketFactory;

/**
 * A remote JMX port for a served platform, opened only when asked ({@code --jmx-port}) and then only with
 * authentication and TLS: a JMX connector and its RMI registry on that port, both over TLS with the key store a
 * TLS configuration file names ({@code javax.net.ssl.keyStore}, {@code javax.net.ssl.keyStorePassword},
 * {@code javax.net.ssl.keyStoreType}), authenticating users against a password file readable by its owner alone
 * and authorising them against an access file, in the formats of the JDK's management agent. Without
 * {@code --jmx-port}, nothing of this runs and only local clients of the same user reach the platform.
 */
final class RemoteJmx {

    final int port;
    final Path passwordFile;
    final Path accessFile;
    final Path sslConfig;

    private RemoteJmx(int port, Path passwordFile, Path accessFile, Path sslConfig) {
        this.port = port;
        this.passwordFile = passwordFile;
        this.accessFile = accessFile;
        this.sslConfig = sslConfig;
    }

    /**
     * Checks the flags before the platform boots.
     *
     * @param port the {@code --jmx-port} value (a port number, as the command line checked), or null when not given
     * @return the remote port's settings, or null when none is asked for
     * @throws IllegalArgumentException if a flag is missing or wrong; the message names it
     */
    static RemoteJmx check(Integer port, Path passwordFile, Path accessFile, Path sslConfig) {
        if (port == null) {
            if (passwordFile != null || accessFile != null || sslConfig != null) {
                throw new IllegalArgumentException("--jmx-password-file, --jmx-access-file and --jmx-ssl-config go"
                        + " with --jmx-port");
            }
            return null;
        }
        int p = port;
        if (passwordFile == null || accessFile == null || sslConfig == null) {
            throw new IllegalArgumentException("--jmx-port opens a remote port only with authentication and TLS:"
                    + " give --jmx-password-file, --jmx-access-file and --jmx-ssl-config (see docs/on-demand.md)");
        }
        for (Path f : List.of(passwordFile, accessFile, sslConfig)) {
            if (!Files.isRegularFile(f) || !Files.isReadable(f)) {
                throw new IllegalArgumentException("cannot read " + f);
            }
        }
        // the key store is read now, so that a TLS configuration without one is refused before the platform boots
        try {
            keyStore(sslConfig);
        } catch (IllegalStateException e) {
            throw new IllegalArgumentException(e.getMessage());
        }
        try {
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(passwordFile);
            if (perms.stream().anyMatch(x -> x.name().startsWith("GROUP") || x.name().startsWith("OTHERS"))) {
                throw new IllegalArgumentException("--jmx-password-file " + passwordFile + " must be readable by its"
                        + " owner only (chmod 600), as the JDK's agent requires");
            }
        } catch (UnsupportedOperationException | IOException e) {
            // no POSIX permissions here: the JDK's agent checks the file itself
        }
        return new RemoteJmx(p, passwordFile.toAbsolutePath(), accessFile.toAbsolutePath(),
                sslConfig.toAbsolutePath());
    }

    private JMXConnectorServer server;

    private static Properties properties(Path sslConfig) throws IOException {
        Properties tls = new Properties();
        try (InputStream in = Files.newInputStream(sslConfig)) {
            tls.load(in);
        } catch (IllegalArgumentException e) {
            throw new IOException("not a properties file (" + e.getMessage() + ")", e);
        }
        return tls;
    }

    /**
     * Reads the key store a TLS configuration names.
     *
     * @throws IllegalStateException naming the configuration and what is wrong: no key store named, one that
     *     cannot be read, or a wrong password or type
     */
    static KeyStore keyStore(Path sslConfig) {
        String store = null;
        try {
            Properties tls = properties(sslConfig);
            store = tls.getProperty("javax.net.ssl.keyStore");
            if (store == null || store.isBlank()) {
                throw new IllegalStateException("--jmx-ssl-config " + sslConfig + " names no javax.net.ssl.keyStore:"
                        + " the port serves its certificate from it (see docs/on-demand.md)");
            }
            KeyStore keys = KeyStore.getInstance(tls.getProperty("javax.net.ssl.keyStoreType",
                    KeyStore.getDefaultType()));
            try (InputStream in = Files.newInputStream(Path.of(store))) {
                keys.load(in, tls.getProperty("javax.net.ssl.keyStorePassword", "").toCharArray());
            }
            return keys;
        } catch (IOException | GeneralSecurityException | java.nio.file.InvalidPathException e) {
            throw new IllegalStateException("--jmx-ssl-config " + sslConfig + ": " + (store == null ? ""
                    : "key store " + store + ": ") + (e instanceof java.nio.file.NoSuchFileException ? "no such file"
                    : e.getMessage()));
        }
    }

    /**
     * Opens the port: an RMI registry and connector on it, both over TLS with the key store the TLS configuration
     * names, and the connector authenticating against the password file and authorising against the access file
     * (the JDK's file-based authentication, as its own management agent uses).
     *
     * @throws IllegalStateException if the key store cannot be read or the port cannot be opened; the message says
     *     which
     */
    void start() {
        try {
            Properties tls = properties(sslConfig);
            String password = tls.getProperty("javax.net.ssl.keyStorePassword", "");
            KeyStore keys = keyStore(sslConfig);
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, password.toCharArray());
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(kmf.getKeyManagers(), null, null);
            SslRMIServerSocketFactory serverSockets = new SslRMIServerSocketFactory(context, null, null, false);
            SslRMIClientSocketFactory clientSockets = new SslRMIClientSocketFactory();
            Registry registry = LocateRegistry.createRegistry(port, clientSockets, serverSockets);
            Map<String, Object> env = new HashMap<>();
            env.put(RMIConnectorServer.RMI_CLIENT_SOCKET_FACTORY_ATTRIBUTE, clientSockets);
            env.put(RMIConnectorServer.RMI_SERVER_SOCKET_FACTORY_ATTRIBUTE, serverSockets);
            env.put("jmx.remote.x.password.file", passwordFile.toString());
            env.put("jmx.remote.x.access.file", accessFile.toString());
            server = JMXConnectorServerFactory.newJMXConnectorServer(
                    new JMXServiceURL("service:jmx:rmi://localhost:" + port), env,
                    ManagementFactory.getPlatformMBeanServer());
            server.start();
            // bind the connector's stub (in its address, /stub/<base64>) into the registry object itself: a
            // lookup through the registry's TLS port would need this JVM to trust its own certificate
            String path = server.getAddress().getURLPath();
            byte[] serialized = Base64.getDecoder().decode(path.substring(path.indexOf("/stub/") + 6));
            try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(serialized))) {
                registry.rebind("jmxrmi", (Remote) in.readObject());
            }
        } catch (IOException | GeneralSecurityException | ClassNotFoundException e) {
            throw new IllegalStateException("the remote JMX port " + port + " did not open: " + e.getMessage(), e);
        }
    }
}
