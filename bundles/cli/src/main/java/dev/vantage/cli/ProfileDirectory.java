package dev.vantage.cli;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Where profiles go when no directory is given, as cache-dit's {@code --profile-dir} defaults: the environment
 * variable {@code VANTAGE_PROFILER_DIR} when it is set and not blank, else {@code ./vantage_profiles}. Every verb
 * and the on-demand profiler take the default from here.
 */
public final class ProfileDirectory {

    /** The environment variable that names the default profile directory. */
    public static final String VARIABLE = "VANTAGE_PROFILER_DIR";
    /** The directory used when neither a flag nor the variable names one, relative to the working directory. */
    public static final String FALLBACK = "vantage_profiles";
    /** The run registry's file in a profile directory. */
    public static final String REGISTRY = "runs.jsonl";
    /** The free space a profile directory needs at least: a small trace and the registry's line. */
    public static final long MIN_FREE_BYTES = 1 << 20;

    private ProfileDirectory() {
    }

    /**
     * Returns the profile directory, absolute and normalized.
     *
     * @param given the directory a flag named, or null
     * @param env the environment
     * @throws IllegalArgumentException if the variable's value is not a path; the message names it
     */
    public static Path resolve(Path given, Map<String, String> env) {
        if (given != null) {
            return given.toAbsolutePath().normalize();
        }
        String fromEnv = env.get(VARIABLE);
        if (fromEnv == null || fromEnv.isBlank()) {
            return Path.of(FALLBACK).toAbsolutePath().normalize();
        }
        try {
            return Path.of(fromEnv).toAbsolutePath().normalize();
        } catch (java.nio.file.InvalidPathException e) {
            throw new IllegalArgumentException(VARIABLE + " '" + fromEnv + "' is not a path (" + e.getReason() + ")");
        }
    }

    /**
     * Checks, before any work, that traces and the run registry's line can be written into a directory: it is one,
     * or can be made; a probe file can be created and deleted in it; its file system has at least
     * {@link #MIN_FREE_BYTES} free; and its {@code runs.jsonl}, if any, is a regular file of this user's, not a
     * symbolic link (the registry's writer refuses those, as the deploy directory is refused). Directories made for
     * the check are removed again when it fails, so a refused run leaves nothing behind; when it passes they stay.
     *
     * @param dir the directory
     * @throws IllegalArgumentException naming the directory and what is wrong, in one line
     */
    public static void check(Path dir) {
        Path target = dir.toAbsolutePath().normalize();
        if (Files.exists(target) && !Files.isDirectory(target)) {
            throw new IllegalArgumentException(dir + ": not a directory");
        }
        List<Path> made = new ArrayList<>();
        try {
            for (Path p = target; p != null && !Files.exists(p); p = p.getParent()) {
                made.add(0, p);
            }
            for (Path p : made) {
                Files.createDirectory(p);
            }
            Path probe = Files.createTempFile(target, ".vantage-probe-", ".tmp");
            Files.delete(probe);
            long free = Files.getFileStore(target).getUsableSpace();
            if (free < MIN_FREE_BYTES) {
                throw new FileSystemException(target.toString(), null, "its file system has " + free
                        + " bytes free, and a trace needs at least " + MIN_FREE_BYTES);
            }
            String registry = registryProblem(target.resolve(REGISTRY));
            if (registry != null) {
                throw new IllegalArgumentException(dir + ": " + registry);
            }
        } catch (IOException | SecurityException | IllegalArgumentException e) {
            for (int i = made.size() - 1; i >= 0; i--) {
                try {
                    Files.deleteIfExists(made.get(i));
                } catch (IOException ignored) {
                    break;   // it was never made, or someone else wrote into it
                }
            }
            if (e instanceof IllegalArgumentException refusal) {
                throw refusal;
            }
            throw new IllegalArgumentException(dir + ": cannot write traces there (" + reason(e) + ")");
        }
    }

    /** Why a run registry file cannot be written to, or null when it can (or does not exist yet). */
    static String registryProblem(Path file) throws IOException {
        if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            return null;
        }
        BasicFileAttributes attrs = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        String why = null;
        if (attrs.isSymbolicLink()) {
            why = "is a symbolic link (to " + Files.readSymbolicLink(file) + ")";
        } else if (!attrs.isRegularFile()) {
            why = "is not a regular file";
        } else {
            String user = System.getProperty("user.name");
            try {
                String owner = Files.getOwner(file, LinkOption.NOFOLLOW_LINKS).getName();
                if (user != null && !owner.equals(user)) {
                    why = "belongs to " + owner + ", not to " + user;
                }
            } catch (UnsupportedOperationException e) {
                // no owners on this file system
            }
        }
        return why == null ? null : REGISTRY + " " + why + "; a run writes its line only to a registry of this"
                + " user's own (remove it, or profile into another directory)";
    }

    private static String reason(Exception e) {
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            return f.getReason();
        }
        return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }
}
