package dev.vantage.cli;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code vantage launch --nproc N [flags] <workload> [run flags]}: starts N ranks on this machine as torchrun does.
 * The run flags after the workload go to every rank's {@code vantage run} unchanged; {@link Cli#parse} checks them
 * as {@code run}'s own before any rank starts.
 */
@Command(name = "launch", description = "start N ranks of a workload on this machine, as torchrun does",
        footer = {"", "Each rank is a JVM running 'vantage run <workload> [run flags]' with this launcher's JVM options"
                + " and the environment RANK, LOCAL_RANK (0..N-1), WORLD_SIZE, LOCAL_WORLD_SIZE (N), MASTER_ADDR,"
                + " MASTER_PORT, VANTAGE_LAUNCH_TIMEOUT_MS, VANTAGE_LAUNCH_ID and VANTAGE_JOB_ID (the job id each"
                + " rank's line of runs.jsonl carries). Every line a rank prints appears here behind '[rank<R>]: '."
                + " With --profile each rank writes <name>-rank<R>.trace.json.gz.",
                "Exit code: 0 when every rank exits 0; otherwise the code of the first rank that failed, and the"
                + " other ranks are stopped. Ctrl-C stops every rank. Bad flags, or a master port in use, exit 2"
                + " before any rank starts."})
public final class LaunchCommand implements Verb {

    /** The most ranks one launch starts: every rank is a JVM on this machine. */
    public static final int MAX_NPROC = 64;
    /** The rendezvous address by default: loopback only. */
    public static final String DEFAULT_MASTER_ADDR = "127.0.0.1";
    /** torchrun's default rendezvous port. */
    public static final int DEFAULT_MASTER_PORT = 29500;

    @Option(names = "--nproc", paramLabel = "N", required = true, converter = Nproc.class,
            description = "number of ranks, 1 to " + MAX_NPROC)
    private int nproc;

    @Option(names = "--master-addr", paramLabel = "ADDR", defaultValue = DEFAULT_MASTER_ADDR,
            description = "rendezvous address (default ${DEFAULT-VALUE}: loopback only)")
    private String masterAddr;

    @Option(names = "--master-port", paramLabel = "PORT", converter = Converters.Port.class,
            description = "rendezvous port (default " + DEFAULT_MASTER_PORT + "); it must be free when launch starts")
    private int masterPort = DEFAULT_MASTER_PORT;

    @Option(names = "--timeout", paramLabel = "TIME", converter = Converters.Duration.class,
            description = "the collectives' timeout, such as 500ms, 30s or 2m (default 60s)")
    private long timeoutMillis = 60_000;

    @Parameters(index = "0", paramLabel = "<workload>", description = "the workload every rank runs")
    private String workload;

    @Parameters(index = "1..*", paramLabel = "[run flags]", description = "flags for every rank's 'vantage run'")
    private List<String> runArgs = new ArrayList<>();

    /** 1 to {@link #MAX_NPROC}. */
    static final class Nproc extends Converters.Range {
        Nproc() {
            super(1, MAX_NPROC);
        }
    }

    @Override
    public Host host() {
        return Host.LAUNCHER;
    }

    @Override
    public void check(Map<String, String> env) throws UsageException {
        if (masterAddr.isBlank()) {
            throw new UsageException("--master-addr needs a value");
        }
        if (runArgs.contains("--rank") || runArgs.contains("--world-size")
                || runArgs.stream().anyMatch(a -> a.startsWith("--rank=") || a.startsWith("--world-size="))) {
            throw new UsageException("launch gives each rank its --rank and --world-size; leave them out");
        }
        // every rank's command line is checked as its run will check it, before any rank starts
        Map<String, String> rankEnv = new HashMap<>(env);
        rankEnv.put("RANK", "0");
        rankEnv.put("WORLD_SIZE", Integer.toString(nproc));
        rankEnv.put("MASTER_ADDR", masterAddr);
        rankEnv.put("MASTER_PORT", Integer.toString(masterPort));
        List<String> run = new ArrayList<>();
        run.add("run");
        run.add(workload);
        run.addAll(runArgs);
        Cli.parse(run, rankEnv);
    }

    /** Returns the number of ranks. */
    public int nproc() {
        return nproc;
    }

    /** Returns the rendezvous address. */
    public String masterAddr() {
        return masterAddr;
    }

    /** Returns the rendezvous port. */
    public int masterPort() {
        return masterPort;
    }

    /** Returns the collectives' timeout in milliseconds. */
    public long timeoutMillis() {
        return timeoutMillis;
    }

    /** Returns the workload every rank runs. */
    public String workload() {
        return workload;
    }

    /** Returns the flags after the workload, for every rank's {@code run}. */
    public List<String> runArgs() {
        return List.copyOf(runArgs);
    }
}
