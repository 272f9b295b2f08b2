package dev.vantage.launcher.platform;

import static org.junit.Assert.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** A run killed before its shutdown hook leaves its framework folder; the next run removes it, and only it. */
public class DeadRunFoldersTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Test
    public void foldersOfRunsWhoseProcessIsGoneAreRemoved() throws Exception {
        Process ended = new ProcessBuilder("true").start();
        ended.waitFor();
        Path root = tmp.getRoot().toPath();
        String dead = Boot.STORAGE_PREFIX + ended.pid() + "-123";
        String alive = Boot.STORAGE_PREFIX + ProcessHandle.current().pid() + "-456";
        String foreign = Boot.STORAGE_PREFIX + "old-style-789";
        Files.createDirectories(root.resolve(dead).resolve("cache").resolve("bundle1"));
        Files.writeString(root.resolve(dead).resolve("cache").resolve("bundle1").resolve("bundle.info"), "x");
        Files.createDirectories(root.resolve(alive));
        Files.createDirectories(root.resolve(foreign));
        Files.createDirectories(root.resolve("unrelated"));

        Boot.removeFoldersOfDeadRuns(root);

        try (Stream<Path> s = Files.list(root)) {
            assertEquals(Set.of(alive, foreign, "unrelated"),
                    s.map(p -> p.getFileName().toString()).collect(Collectors.toSet()));
        }
    }

    @Test
    public void launchersRemovingTheSameLeftoverAtOnceBothCarryOn() throws Exception {
        Process ended = new ProcessBuilder("true").start();
        ended.waitFor();
        Path root = tmp.getRoot().toPath();
        // the ranks of a launch start together, and each removes what a killed earlier launch left
        for (int n = 0; n < 20; n++) {
            Path dead = root.resolve(Boot.STORAGE_PREFIX + ended.pid() + "-" + n);
            for (int f = 0; f < 50; f++) {
                Path dir = Files.createDirectories(dead.resolve("cache").resolve("bundle" + f));
                Files.writeString(dir.resolve("bundle.info"), "x");
            }
        }
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            java.util.List<java.util.concurrent.Future<?>> removers = new java.util.ArrayList<>();
            for (int t = 0; t < 4; t++) {
                removers.add(pool.submit(() -> Boot.removeFoldersOfDeadRuns(root)));
            }
            for (java.util.concurrent.Future<?> r : removers) {
                r.get();   // a remover that threw fails here
            }
        } finally {
            pool.shutdownNow();
        }
        try (Stream<Path> s = Files.list(root)) {
            assertEquals(0, s.count());
        }
    }
}
