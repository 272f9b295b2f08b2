package dev.vantage.launcher.platform;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.osgi.framework.BundleException;

/**
 * FileInstall's log, one line per record. FileInstall prints its errors with their stack traces (8 to 13 lines for
 * a bundle that does not resolve or a {@code .cfg} that does not parse); told to log through
 * {@code java.util.logging} ({@code felix.fileinstall.log.default=jul}), its records come here instead. Those that
 * {@link DeployChecker} reports better (it names the missing packages and the jar that provides them, or the
 * {@code .cfg} file's problem) are left to it; every other is printed as {@code vantage: deploy: <message> (<cause>)}.
 */
final class FileInstallLog extends Handler {

    /** FileInstall's logger name for {@code felix.fileinstall.log.default=jul}. */
    static final String LOGGER = "fileinstall";
    private static final Pattern ARTIFACT = Pattern.compile("Failed to install artifact: (.+)");

    /** Held so that the logger, and the handler set on it, are not collected (loggers are weakly referenced). */
    private static Logger logger;

    private final PrintStream err;
    private final Path deployDir;

    FileInstallLog(PrintStream err, Path deployDir) {
        this.err = err;
        this.deployDir = deployDir;
    }

    /** Routes FileInstall's logger to one line per record on {@code err}, and nowhere else. */
    static synchronized void install(PrintStream err, Path deployDir) {
        logger = Logger.getLogger(LOGGER);
        for (Handler h : logger.getHandlers()) {
            logger.removeHandler(h);
        }
        logger.setUseParentHandlers(false);
        logger.setLevel(Level.ALL);   // FileInstall's felix.fileinstall.log.level decides what it logs
        logger.addHandler(new FileInstallLog(err, deployDir));
    }

    @Override
    public void publish(LogRecord record) {
        String line = line(record);
        if (line != null) {
            err.println(line);
        }
    }

    /** The line for a record, or null when {@link DeployChecker} reports the problem itself. */
    String line(LogRecord record) {
        String message = record.getMessage() == null ? "" : record.getMessage();
        Throwable thrown = record.getThrown();
        if (thrown instanceof BundleException b && b.getType() == BundleException.RESOLVE_ERROR) {
            return null;   // DeployChecker names the missing packages and who provides them
        }
        Matcher m = ARTIFACT.matcher(message.strip());
        if (m.matches()) {
            Path file = Path.of(m.group(1).strip());
            String name = file.getFileName() == null ? "" : file.getFileName().toString();
            if (name.endsWith(".cfg") && DeployChecker.cfgProblem(file) != null
                    || name.endsWith(".jar") && DeployChecker.jarProblem(file) != null) {
                return null;   // DeployChecker says what is wrong with the file
            }
        }
        String cause = thrown == null ? "" : " (" + describe(thrown) + ")";
        String text = (message + cause).replaceAll("\\s*[\\r\\n]+\\s*", " ").strip();
        if (thrown != null && message.contains(String.valueOf(thrown.getMessage()))) {
            text = message.replaceAll("\\s*[\\r\\n]+\\s*", " ").strip();
        }
        return "vantage: deploy: " + text + (record.getLevel().intValue() >= Level.SEVERE.intValue()
                ? "; the platform goes on (deploy directory " + deployDir + ")" : "");
    }

    private static String describe(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() != null ? root.getMessage() : root.toString();
    }

    @Override
    public void flush() {
        err.flush();
    }

    @Override
    public void close() {
        flush();
    }
}
