package dev.vantage.analysis.sql;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The Parquet files under a directory, by table: every {@code <name>_parquet/} folder the {@code parquet} exporter
 * wrote, at any depth (one run's ranks side by side, or a folder of runs). Each folder must hold all four tables.
 *
 * @param root the directory searched
 * @param files for each of {@link Query#TABLES}, its files, sorted
 */
public record TraceFolders(Path root, Map<String, List<Path>> files) {

    /** The suffix of the folders the exporter writes. */
    public static final String SUFFIX = "_parquet";

    /**
     * Finds the trace folders under {@code dir}.
     *
     * @throws IllegalArgumentException if {@code dir} is not a directory, holds no trace folder, or a trace folder
     *         lacks a table
     */
    public static TraceFolders find(Path dir) {
        if (!Files.isDirectory(dir)) {
            throw new IllegalArgumentException("analyze: '" + dir + "' is not a directory");
        }
        List<Path> folders;
        try (Stream<Path> s = Files.walk(dir)) {
            // hidden folders are what writers have not finished (a conversion's staging folder, an exporter's
            // temporary one): no table in them is read
            folders = s.filter(p -> Files.isDirectory(p) && p.getFileName() != null
                    && p.getFileName().toString().endsWith(SUFFIX) && !hidden(dir.relativize(p)))
                    .sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (folders.isEmpty()) {
            throw new IllegalArgumentException("analyze: no Parquet traces in '" + dir
                    + "' (no *_parquet folder; profile with --profile-export parquet), nor a trace file of its own"
                    + " (*.json, *.pftrace, .gz) for the trace analyses");
        }
        Map<String, List<Path>> files = new LinkedHashMap<>();
        for (String table : Query.TABLES) {
            List<Path> list = new ArrayList<>(folders.size());
            for (Path folder : folders) {
                Path file = folder.resolve(table + ".parquet");
                if (!Files.isRegularFile(file)) {
                    throw new IllegalArgumentException("analyze: '" + folder + "' has no " + table + ".parquet");
                }
                list.add(file.toAbsolutePath());
            }
            files.put(table, Collections.unmodifiableList(list));
        }
        return new TraceFolders(dir, Collections.unmodifiableMap(files));
    }

    private static boolean hidden(Path relative) {
        for (Path part : relative) {
            if (part.toString().startsWith(".")) {
                return true;
            }
        }
        return false;
    }

    /** Returns how many trace folders (one per rank and profiling cycle) were found. */
    public int size() {
        return files.get(Query.TABLES.get(0)).size();
    }
}
