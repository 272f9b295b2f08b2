package dev.vantage.cli;

import java.nio.file.Path;

import picocli.CommandLine.Option;

/**
 * The flags of the verbs that keep a platform running ({@code serve}, {@code shell}): the deploy directory it
 * watches, and a remote JMX port for on-demand profiling from another machine.
 */
public final class PlatformOptions {

    @Option(names = "--deploy-dir", paramLabel = "DIR", converter = Converters.AbsolutePath.class,
            description = "the directory to hot-deploy bundle jars and .cfg files from (default"
                    + " <distribution>/deploy)")
    private Path deployDir;

    @Option(names = "--allow-shared-deploy-dir", description = "watch a deploy directory that another user owns"
            + " or others can write to, with a warning instead of a refusal")
    private boolean allowSharedDeployDir;

    @Option(names = "--jmx-port", paramLabel = "PORT", converter = Converters.Port.class,
            description = "serve the profiler MBean on this port, with password authentication and TLS (needs the"
                    + " three files below)")
    private Integer jmxPort;

    @Option(names = "--jmx-password-file", paramLabel = "FILE", converter = Converters.GivenPath.class,
            description = "the JMX password file (owner-readable only)")
    private Path jmxPasswordFile;

    @Option(names = "--jmx-access-file", paramLabel = "FILE", converter = Converters.GivenPath.class,
            description = "the JMX access file")
    private Path jmxAccessFile;

    @Option(names = "--jmx-ssl-config", paramLabel = "FILE", converter = Converters.GivenPath.class,
            description = "the JMX TLS configuration (keystore and its password)")
    private Path jmxSslConfig;

    /** Returns the deploy directory, absolute, or null for the distribution's. */
    public Path deployDir() {
        return deployDir;
    }

    /** Returns whether a shared deploy directory is watched anyway. */
    public boolean allowSharedDeployDir() {
        return allowSharedDeployDir;
    }

    /** Returns the remote JMX port, or null for none. */
    public Integer jmxPort() {
        return jmxPort;
    }

    /** Returns the JMX password file, or null. */
    public Path jmxPasswordFile() {
        return jmxPasswordFile;
    }

    /** Returns the JMX access file, or null. */
    public Path jmxAccessFile() {
        return jmxAccessFile;
    }

    /** Returns the JMX TLS configuration, or null. */
    public Path jmxSslConfig() {
        return jmxSslConfig;
    }
}
