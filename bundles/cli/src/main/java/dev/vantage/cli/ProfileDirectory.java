package dev.vantage.cli;

import java.nio.file.Path;
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
}
