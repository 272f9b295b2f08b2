package dev.vantage.agent.bootstrap;

import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * Starts the agent once per JVM: makes the process's own folder ({@code <java.io.tmpdir>/vantage-agent-<pid>-*},
 * readable by this user only), copies the jars of the agent's host there ({@value #HOST} in the agent jar: its
 * instrumentation, Felix, the command line's options) and loads them in a {@link HostLoader}, whose parent is the
 * JDK's platform loader: neither the application's classes see them nor they the application's, but for this
 * package. The host ({@code dev.vantage.agent.host.AgentHost}) does the rest.
 */
public final class AgentStart {

    /** Where the host's jars are in the agent jar. */
    public static final String HOST = "vantage-agent/host/";
    /** The prefix of the process's folder in the temporary directory. */
    public static final String FOLDER_PREFIX = "vantage-agent-";

    private static boolean started;

    private AgentStart() {
    }

    /**
     * Starts the agent: once; a second load in the same JVM says so and does nothing.
     *
     * @param options the agent's options, or null
     * @param dynamic whether the agent is loaded into a running JVM
     * @param jar the agent jar
     */
    public static synchronized void start(String options, Instrumentation inst, boolean dynamic, Path jar)
            throws Exception {
        if (started) {
            System.err.println("vantage-agent: already loaded in this JVM; this load does nothing");
            return;
        }
        started = true;
        Path home = ownFolder(Path.of(System.getProperty("java.io.tmpdir")),
                FOLDER_PREFIX + ProcessHandle.current().pid() + "-");
        ClassLoader host = hostLoader(jar, home);
        Class<?> main = host.loadClass("dev.vantage.agent.host.AgentHost");
        main.getMethod("start", Instrumentation.class, String.class, boolean.class, Path.class, Path.class)
                .invoke(null, inst, options, dynamic, jar, home);
    }

    /**
     * Makes a new folder {@code <prefix><n>} in {@code dir}, readable by this user only. Named by a counter rather
     * than {@code Files.createTempDirectory}'s random number, whose generator costs the application's start 25 ms;
     * the prefix holds the process id, so only a dead process's leftover can be in the way.
     */
    static Path ownFolder(Path dir, String prefix) throws IOException {
        for (int n = 0; ; n++) {
            Path candidate = dir.resolve(prefix + n);
            try {
                try {
                    return Files.createDirectory(candidate, PosixFilePermissions.asFileAttribute(
                            PosixFilePermissions.fromString("rwx------")));
                } catch (UnsupportedOperationException e) {
                    // not a POSIX file system: the temporary directory's own protection applies
                    return Files.createDirectory(candidate);
                }
            } catch (java.nio.file.FileAlreadyExistsException e) {
                if (n == 1_000) {
                    throw e;
                }
            }
        }
    }

    /**
     * Copies the host's jars out of the agent jar into {@code home/host} and returns a class loader over them, whose
     * parent is the platform class loader.
     */
    public static ClassLoader hostLoader(Path jar, Path home) throws IOException {
        Path dir = Files.createDirectories(home.resolve("host"));
        List<URL> urls = new ArrayList<>();
        try (JarFile file = new JarFile(jar.toFile())) {
            Enumeration<JarEntry> entries = file.entries();
            while (entries.hasMoreElements()) {
                JarEntry e = entries.nextElement();
                String name = e.getName();
                if (name.startsWith(HOST) && name.endsWith(".jar") && name.indexOf('/', HOST.length()) < 0) {
                    Path target = dir.resolve(name.substring(HOST.length()));
                    try (InputStream in = file.getInputStream(e)) {
                        Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
                    }
                    urls.add(target.toUri().toURL());
                }
            }
        }
        if (urls.isEmpty()) {
            throw new IOException(jar + " holds no " + HOST + "*.jar: not a complete vantage-agent.jar");
        }
        return new HostLoader(urls.toArray(new URL[0]));
    }

    /**
     * The host's class loader: its jars, over the JDK's platform loader, and this package from the class loader that
     * loaded it (the system class loader), so that the host, its Felix and the bundles Felix exports this package to
     * reach the same {@link Bridge} as the woven code.
     */
    static final class HostLoader extends URLClassLoader {

        private static final String SHARED = AgentStart.class.getPackageName() + ".";

        static {
            registerAsParallelCapable();
        }

        HostLoader(URL[] urls) {
            super("vantage-agent", urls, ClassLoader.getPlatformClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (name.startsWith(SHARED)) {
                return AgentStart.class.getClassLoader().loadClass(name);
            }
            return super.loadClass(name, resolve);
        }
    }
}
