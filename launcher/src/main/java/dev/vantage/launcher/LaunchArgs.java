package dev.vantage.launcher;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The command line of {@code vantage launch}, checked before any rank starts: how many ranks, where they meet, how
 * long their collectives wait, and the workload with the {@code run} flags every rank gets unchanged.
 *
 * @param help whether to print the usage and do nothing else; the other components are then defaults
 * @param nproc the number of ranks, 1 to {@link #MAX_NPROC}
 * @param masterAddr the rendezvous address, never null
 * @param masterPort the rendezvous port, 1 to 65535
 * @param timeoutMillis the collectives' timeout handed to every rank, more than zero
 * @param workload the workload every rank runs; null only for {@code help}
 * @param runArgs the arguments after the workload, for {@code vantage run} unchanged
 */
record LaunchArgs(boolean help, int nproc, String masterAddr, int masterPort, long timeoutMillis, String workload,
        List<String> runArgs) {

    /** The most ranks one launch starts: every rank is a JVM on this machine. */
    static final int MAX_NPROC = 64;
    static final String DEFAULT_MASTER_ADDR = "127.0.0.1";
    /** torchrun's default rendezvous port. */
    static final int DEFAULT_MASTER_PORT = 29500;
    static final long DEFAULT_TIMEOUT_MILLIS = 60_000;

    LaunchArgs {
        Objects.requireNonNull(masterAddr, "masterAddr");
        runArgs = List.copyOf(runArgs);
    }

    /**
     * Parses the arguments that follow the verb {@code launch}: launch flags up to the workload, then anything.
     *
     * @param args the arguments after {@code launch}
     * @throws IllegalArgumentException for a bad, missing or repeated launch flag, or no workload; the message names
     *         the bad value and fits on a line
     */
    static LaunchArgs parse(List<String> args) {
        Integer nproc = null;
        String masterAddr = DEFAULT_MASTER_ADDR;
        int masterPort = DEFAULT_MASTER_PORT;
        long timeoutMillis = DEFAULT_TIMEOUT_MILLIS;
        List<String> seen = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String flag = args.get(i);
            if (!flag.startsWith("-")) {
                if (nproc == null) {
                    throw new IllegalArgumentException("launch needs --nproc N (the number of ranks, 1 to "
                            + MAX_NPROC + ") before the workload; see 'vantage launch --help'");
                }
                return new LaunchArgs(false, nproc, masterAddr, masterPort, timeoutMillis, flag,
                        args.subList(i + 1, args.size()));
            }
            if (flag.equals("--help") || flag.equals("-h")) {
                return new LaunchArgs(true, 1, DEFAULT_MASTER_ADDR, DEFAULT_MASTER_PORT, DEFAULT_TIMEOUT_MILLIS,
                        null, List.of());
            }
            if (seen.contains(flag)) {
                throw new IllegalArgumentException(flag + " is given twice");
            }
            seen.add(flag);
            switch (flag) {
                case "--nproc" -> nproc = wholeNumber(flag, value(args, ++i, flag), 1, MAX_NPROC, "a number of ranks");
                case "--master-addr" -> masterAddr = value(args, ++i, flag);
                case "--master-port" -> masterPort = wholeNumber(flag, value(args, ++i, flag), 1, 65_535, "a port");
                case "--timeout" -> timeoutMillis = ProfileArgs.durationMillis(flag, value(args, ++i, flag));
                default -> throw new IllegalArgumentException("unknown flag '" + flag + "' for 'launch'; launch flags"
                        + " go before the workload, run flags after it (see 'vantage launch --help')");
            }
        }
        if (nproc == null) {
            throw new IllegalArgumentException("launch needs --nproc N (the number of ranks, 1 to " + MAX_NPROC
                    + "); see 'vantage launch --help'");
        }
        throw new IllegalArgumentException("launch needs a workload to run, such as 'matmul'; see"
                + " 'vantage launch --help'");
    }

    /** This launch's time, {@code yyyyMMdd-HHmmss}, which its ranks' default profile names share. */
    static final String LAUNCH_ID = java.time.LocalDateTime.now().format(
            java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));

    /**
     * This launch's job id, 12 random lowercase hex digits: each rank's line of the run registry
     * ({@code runs.jsonl}) and each rank's trace metadata ({@code vantage.job_id}) carry it, so that the ranks of one
     * launch can be found together.
     */
    static final String JOB_ID = java.util.HexFormat.of().formatHex(randomBytes());

    private static byte[] randomBytes() {
        byte[] bytes = new byte[6];
        new java.security.SecureRandom().nextBytes(bytes);
        return bytes;
    }

    /**
     * Returns the variables rank {@code rank} gets on top of the launcher's environment, as torchrun sets them,
     * in a stable order.
     *
     * @throws IllegalArgumentException if {@code rank} is not in {@code 0..nproc-1}
     */
    Map<String, String> environment(int rank) {
        if (rank < 0 || rank >= nproc) {
            throw new IllegalArgumentException("rank " + rank + " is not in 0.." + (nproc - 1));
        }
        Map<String, String> env = new LinkedHashMap<>();
        env.put("RANK", Integer.toString(rank));
        // one machine: the local rank is the rank
        env.put("LOCAL_RANK", Integer.toString(rank));
        env.put("WORLD_SIZE", Integer.toString(nproc));
        env.put("LOCAL_WORLD_SIZE", Integer.toString(nproc));
        env.put("MASTER_ADDR", masterAddr);
        env.put("MASTER_PORT", Integer.toString(masterPort));
        env.put("VANTAGE_LAUNCH_TIMEOUT_MS", Long.toString(timeoutMillis));
        // one default profile name for every rank of this launch: <workload>-<launch time>-rank<R>
        env.put("VANTAGE_LAUNCH_ID", LAUNCH_ID);
        env.put("VANTAGE_JOB_ID", JOB_ID);
        return env;
    }

    private static int wholeNumber(String flag, String text, int min, int max, String what) {
        int n;
        try {
            n = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            n = min - 1;
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException(flag + " takes " + what + " from " + min + " to " + max + ", not '"
                    + text + "'");
        }
        return n;
    }

    private static String value(List<String> args, int i, String flag) {
        if (i >= args.size() || args.get(i).startsWith("--") || args.get(i).isBlank()) {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return args.get(i);
    }
}
