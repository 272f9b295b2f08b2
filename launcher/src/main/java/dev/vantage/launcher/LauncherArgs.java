package dev.vantage.launcher;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The part of the command line the launcher itself needs before the platform runs: which distribution to boot,
 * which deploy directory to watch, and how the platform should run. Everything else goes to the platform's shell
 * bundle unchanged.
 */
final class LauncherArgs {

    /** How the platform runs. */
    enum Mode {
        /** Run one verb, then stop with its exit code. */
        COMMAND,
        /** Run until interrupted, hot-deploying from the deploy directory. */
        SERVE,
        /** Like SERVE, with an interactive Gogo shell on the terminal. */
        SHELL,
        /**
         * A verb the launcher runs itself, without booting the platform: {@code features}, {@code assemble},
         * {@code profile}, {@code launch}.
         */
        TOOL
    }

    /** The verbs the launcher runs itself ({@link Mode#TOOL}); every other verb is the platform's. */
    static final List<String> TOOL_VERBS = List.of("features", "assemble", "profile", "launch", "runs", "compare",
            "report", "analyze");
    /** The tool verbs answered by the analysis library in a distribution's {@code lib/analysis/}. */
    static final List<String> ANALYSIS_VERBS = List.of("runs", "compare", "report", "analyze");

    final String distribution;
    final Path deployDir;
    /** Whether to watch a deploy directory other users can write to, with a warning instead of a refusal. */
    final boolean allowSharedDeployDir;
    final Mode mode;
    /** The first argument that is not a flag, or null. */
    final String verb;
    final List<String> platformArgs;
    /** The remote JMX port asked for, or null for none. */
    final RemoteJmx jmx;

    private LauncherArgs(String distribution, Path deployDir, boolean allowSharedDeployDir, Mode mode, String verb,
            List<String> platformArgs, RemoteJmx jmx) {
        this.distribution = distribution;
        this.deployDir = deployDir;
        this.allowSharedDeployDir = allowSharedDeployDir;
        this.mode = mode;
        this.verb = verb;
        this.platformArgs = List.copyOf(platformArgs);
        this.jmx = jmx;
    }

    /**
     * Parses the command line.
     *
     * @throws IllegalArgumentException if a launcher flag lacks its value; the message names the flag
     */
    static LauncherArgs parse(String[] args) {
        String distribution = null;
        Path deployDir = null;
        boolean allowShared = false;
        List<String> rest = new ArrayList<>();
        String verb = null;
        String jmxPort = null;
        Path jmxPasswords = null;
        Path jmxAccess = null;
        Path jmxSsl = null;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--distribution")) {
                distribution = value(args, ++i, arg);
                if (distribution.contains("/") || distribution.contains("\\") || distribution.contains("..")) {
                    throw new IllegalArgumentException("--distribution takes a name such as full or minimal, not '"
                            + distribution + "'");
                }
            } else if (arg.equals("--deploy-dir")) {
                deployDir = Path.of(value(args, ++i, arg)).toAbsolutePath().normalize();
            } else if (arg.equals("--allow-shared-deploy-dir")) {
                allowShared = true;
            } else if (arg.equals("--jmx-port")) {
                jmxPort = value(args, ++i, arg);
            } else if (arg.equals("--jmx-password-file")) {
                jmxPasswords = Path.of(value(args, ++i, arg));
            } else if (arg.equals("--jmx-access-file")) {
                jmxAccess = Path.of(value(args, ++i, arg));
            } else if (arg.equals("--jmx-ssl-config")) {
                jmxSsl = Path.of(value(args, ++i, arg));
            } else {
                if (verb == null && !arg.startsWith("-")) {
                    verb = arg;
                }
                rest.add(arg);
            }
        }
        boolean help = rest.contains("--help") || rest.contains("-h");
        Mode mode = verb != null && TOOL_VERBS.contains(verb) ? Mode.TOOL
                : help ? Mode.COMMAND
                : "serve".equals(verb) ? Mode.SERVE
                : "shell".equals(verb) ? Mode.SHELL
                : Mode.COMMAND;
        if (deployDir != null && (mode == Mode.COMMAND || mode == Mode.TOOL) && !help) {
            throw new IllegalArgumentException("--deploy-dir applies to 'serve' and 'shell' only");
        }
        if (allowShared && (mode == Mode.COMMAND || mode == Mode.TOOL) && !help) {
            throw new IllegalArgumentException("--allow-shared-deploy-dir applies to 'serve' and 'shell' only");
        }
        RemoteJmx jmx = RemoteJmx.check(jmxPort, jmxPasswords, jmxAccess, jmxSsl);
        if (jmx != null && mode != Mode.SERVE && mode != Mode.SHELL && !help) {
            throw new IllegalArgumentException("--jmx-port applies to 'serve' and 'shell' only");
        }
        return new LauncherArgs(distribution, deployDir, allowShared, mode, verb, rest, jmx);
    }

    private static String value(String[] args, int i, String flag) {
        if (i >= args.length || args[i].startsWith("--")) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return args[i];
    }
}
