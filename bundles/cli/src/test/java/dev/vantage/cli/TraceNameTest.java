package dev.vantage.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Runs that start together get names of their own; a name is taken by its files and by a live claim. */
public class TraceNameTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Test
    public void eightRunsClaimingOneDefaultNameAtOnceGetEightNames() throws Exception {
        Path dir = tmp.newFolder("profiles").toPath();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        CyclicBarrier together = new CyclicBarrier(8);
        try {
            List<Future<TraceName>> claims = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                claims.add(pool.submit(() -> {
                    together.await();
                    return TraceName.claim(dir, "matmul-20261123-135240");
                }));
            }
            Set<String> names = new TreeSet<>();
            for (Future<TraceName> f : claims) {
                names.add(f.get().name());
            }
            assertEquals(Set.of("matmul-20261123-135240", "matmul-20261123-135240-2", "matmul-20261123-135240-3",
                    "matmul-20261123-135240-4", "matmul-20261123-135240-5", "matmul-20261123-135240-6",
                    "matmul-20261123-135240-7", "matmul-20261123-135240-8"), names);
            for (Future<TraceName> f : claims) {
                f.get().close();
            }
            try (var left = Files.list(dir)) {
                assertEquals("released claims leave nothing", 0, left.count());
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    public void aNameIsTakenByItsFilesAndFreeAgainWhenItsClaimWasLeftByADeadProcess() throws Exception {
        Path dir = tmp.newFolder("profiles").toPath();
        Files.writeString(dir.resolve("run.trace.json.gz"), "x");
        Files.createDirectory(dir.resolve("run-2_csv"));
        Files.writeString(dir.resolve("run-3-rank0-memory-1.pickle"), "x");
        // a claim by a process that is gone: taken over
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        Files.writeString(dir.resolve(".run-4.claim"), Long.toString(gone.pid()));
        try (TraceName claim = TraceName.claim(dir, "run")) {
            assertEquals("run-4", claim.name());
            // a live claim (this process's) keeps the name from the next run
            try (TraceName next = TraceName.claim(dir, "run")) {
                assertEquals("run-5", next.name());
            }
        }
        assertFalse(Files.exists(dir.resolve(".run-4.claim")));
        // a file whose name only starts like the run's ('run-40') does not take 'run'
        Files.delete(dir.resolve("run.trace.json.gz"));
        Files.writeString(dir.resolve("run-40.trace.json"), "x");
        try (TraceName claim = TraceName.claim(dir, "run")) {
            assertEquals("run", claim.name());
            assertTrue(Files.exists(dir.resolve(".run.claim")));
        }
    }
}
