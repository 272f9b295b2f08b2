package dev.vantage.launcher.platform;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Whether a deploy directory is the user's alone. Every jar dropped into it is started with the platform's rights,
 * so a directory that another user can write to, or that another user owns, hands them this process.
 */
final class DeployDirSafety {

    private DeployDirSafety() {
    }

    /**
     * Returns why a deploy directory is not safe to watch, or null when only its owner, the user running the
     * platform, can write to it. On a file system without POSIX permissions there is nothing to check: null.
     *
     * @throws IOException if the directory's attributes cannot be read
     */
    static String problem(Path dir, String user) throws IOException {
        PosixFileAttributes attrs;
        try {
            attrs = Files.readAttributes(dir, PosixFileAttributes.class);
        } catch (UnsupportedOperationException e) {
            return null;
        }
        Set<PosixFilePermission> perms = attrs.permissions();
        String mode = PosixFilePermissions.toString(perms);
        if (perms.contains(PosixFilePermission.OTHERS_WRITE)) {
            return "deploy directory " + dir + " is writable by every user (" + mode + ")";
        }
        if (perms.contains(PosixFilePermission.GROUP_WRITE)) {
            return "deploy directory " + dir + " is writable by its group " + attrs.group().getName() + " (" + mode
                    + ")";
        }
        String owner = attrs.owner().getName();
        if (!owner.equals(user)) {
            return "deploy directory " + dir + " belongs to " + owner + ", not to " + user;
        }
        return null;
    }

    /** The one-line refusal: what is wrong, what it risks, and the two ways out. */
    static String refusal(String problem, Path dir) {
        return problem + ": a jar placed there would run with this platform's rights; make it yours alone"
                + " (chown and chmod go-w " + dir + ") or pass --allow-shared-deploy-dir";
    }
}
