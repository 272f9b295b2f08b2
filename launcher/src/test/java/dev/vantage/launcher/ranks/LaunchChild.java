package dev.vantage.launcher.ranks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A tiny rank for {@link LaunchTest}: prints the launch environment on stdout and one line on stderr, then, by its
 * arguments, prints more lines, exits with a code or waits forever.
 *
 * <p>Arguments, taken in order: {@code lines=N} prints N long numbered lines; {@code exit=R:C} makes rank R exit
 * with code C; {@code sleep=R,R...} makes those ranks wait until they are stopped; {@code stubborn=R:FILE} makes
 * rank R ignore a polite stop (a shutdown hook that never returns), create FILE and wait until it is killed;
 * {@code await=FILE} waits until FILE exists; {@code pid=R:FILE} makes rank R write its process id to FILE;
 * {@code outlive=FILE} waits until FILE names a process id and, unless that is this process, until it has ended.
 */
public final class LaunchChild {

    static final List<String> VARIABLES = List.of("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE",
            "MASTER_ADDR", "MASTER_PORT", "VANTAGE_LAUNCH_TIMEOUT_MS");
    static final String FILLER = "x".repeat(300);

    private LaunchChild() {
    }

    public static void main(String[] args) throws InterruptedException, IOException {
        String rank = System.getenv("RANK");
        StringBuilder env = new StringBuilder("env");
        for (String v : VARIABLES) {
            env.append(' ').append(v).append('=').append(System.getenv(v));
        }
        System.out.println(env);
        System.err.println("stderr of rank " + rank);
        for (String arg : args) {
            String[] kv = arg.split("=", 2);
            switch (kv[0]) {
                case "lines" -> {
                    for (int i = 0; i < Integer.parseInt(kv[1]); i++) {
                        System.out.println("line " + i + " " + FILLER);
                    }
                }
                case "exit" -> {
                    String[] rc = kv[1].split(":");
                    if (rc[0].equals(rank)) {
                        System.err.println("exiting with " + rc[1]);
                        System.exit(Integer.parseInt(rc[1]));
                    }
                }
                case "sleep" -> {
                    if (Arrays.asList(kv[1].split(",")).contains(rank)) {
                        System.out.println("sleeping");
                        new CountDownLatch(1).await();
                    }
                }
                case "stubborn" -> {
                    String[] rf = kv[1].split(":", 2);
                    if (rf[0].equals(rank)) {
                        CountDownLatch never = new CountDownLatch(1);
                        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                            try {
                                never.await();
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        }));
                        Files.createFile(Path.of(rf[1]));
                        System.out.println("stubborn");
                        never.await();
                    }
                }
                case "await" -> await(Path.of(kv[1]));
                case "pid" -> {
                    String[] rf = kv[1].split(":", 2);
                    if (rf[0].equals(rank)) {
                        Path file = Path.of(rf[1]);
                        Path partial = file.resolveSibling(file.getFileName() + ".partial");
                        Files.writeString(partial, Long.toString(ProcessHandle.current().pid()));
                        Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE);
                    }
                }
                case "outlive" -> {
                    Path file = Path.of(kv[1]);
                    await(file);
                    long pid = Long.parseLong(Files.readString(file));
                    if (pid != ProcessHandle.current().pid()) {
                        ProcessHandle.of(pid).ifPresent(p -> p.onExit().join());
                    }
                }
                default -> throw new IllegalArgumentException("unknown argument " + arg);
            }
        }
    }

    private static void await(Path file) {
        while (!Files.exists(file)) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }
}
