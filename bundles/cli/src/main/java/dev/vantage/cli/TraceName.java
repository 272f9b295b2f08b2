package dev.vantage.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A trace name claimed in a profile directory for one run or capture, so that runs with the same name (runs started
 * in the same second, whose default names {@code <workload>-<date>-<time>} are equal, or runs given one
 * {@code --profile-name}) never write over each other's files: the first takes the name, the next {@code <name>-2},
 * then {@code <name>-3}, and so on.
 *
 * <p>A name is free when no file or folder of the directory belongs to it (the name itself, or a name that goes on
 * with {@code .}, {@code _}, {@code -rank} or {@code -cycle}, as traces, CSV folders, stacks and memory files do) and
 * no running process holds its claim: a hidden file {@code .<name>.claim} holding the process id, created with
 * {@code CREATE_NEW}, so that two processes never both take one name. The claim lasts until {@link #close()}; one
 * left by a process that was killed is taken over.
 */
public final class TraceName implements AutoCloseable {

    private static final String CLAIM_PREFIX = ".";
    private static final String CLAIM_SUFFIX = ".claim";
    /** Names tried before giving up: more runs than this in one second into one directory are not expected. */
    private static final int MAX_TRIES = 10_000;

    private final String name;
    private final Path claim;

    private TraceName(String name, Path claim) {
        this.name = name;
        this.claim = claim;
    }

    /**
     * Claims {@code base} in a directory, or the first of {@code base-2}, {@code base-3}, ... that is free.
     *
     * @param dir the profile directory; it must exist
     * @param base the name wanted
     * @return the claim; {@link #close()} releases it once the run's files are written
     * @throws IOException if the directory cannot be read or the claim cannot be created
     */
    public static TraceName claim(Path dir, String base) throws IOException {
        Objects.requireNonNull(dir, "dir");
        Converters.fileName(Objects.requireNonNull(base, "base"));
        for (int k = 1; k <= MAX_TRIES; k++) {
            String candidate = k == 1 ? base : base + "-" + k;
            Path claim = dir.resolve(CLAIM_PREFIX + candidate + CLAIM_SUFFIX);
            if (inUse(dir, candidate)) {
                continue;
            }
            for (int attempt = 0; attempt < 2; attempt++) {
                try {
                    Files.writeString(Files.createFile(claim), Long.toString(ProcessHandle.current().pid()),
                            StandardCharsets.US_ASCII);
                    // a run that ended between the look and the claim left its files under the name
                    if (inUse(dir, candidate)) {
                        Files.deleteIfExists(claim);
                        break;
                    }
                    return new TraceName(candidate, claim);
                } catch (FileAlreadyExistsException e) {
                    if (!stale(claim)) {
                        break;
                    }
                    Files.deleteIfExists(claim);
                }
            }
        }
        throw new IOException("no free trace name like " + base + " in " + dir + " after " + MAX_TRIES + " tries");
    }

    /** Returns the claimed name. */
    public String name() {
        return name;
    }

    /** Releases the claim; the name stays taken by the files written under it. */
    @Override
    public void close() {
        try {
            Files.deleteIfExists(claim);
        } catch (IOException e) {
            // a claim that cannot be removed only keeps its name from later runs, which take the next one
        }
    }

    /** Whether a file or folder of the directory belongs to the name (the claims of others excepted). */
    private static boolean inUse(Path dir, String name) throws IOException {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path p : entries) {
                String f = p.getFileName().toString();
                if (f.equals(name) || f.startsWith(name + ".") || f.startsWith(name + "_")
                        || f.startsWith(name + "-rank") || f.startsWith(name + "-cycle")) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Whether a claim was left by a process that is gone (or cannot be read as one). */
    private static boolean stale(Path claim) {
        String text;
        try {
            text = Files.readString(claim, StandardCharsets.US_ASCII).strip();
        } catch (NoSuchFileException e) {
            return true;   // released meanwhile: free to take
        } catch (IOException e) {
            return false;
        }
        if (text.isEmpty()) {
            // being written by its owner this very moment, or left empty by a crash: only the age tells
            try {
                return System.currentTimeMillis() - Files.getLastModifiedTime(claim).toMillis() > 60_000;
            } catch (IOException e) {
                return true;
            }
        }
        try {
            return ProcessHandle.of(Long.parseLong(text)).map(h -> !h.isAlive()).orElse(true);
        } catch (NumberFormatException e) {
            return true;
        }
    }
}
