package dev.vantage.exporter.parquet.fleet;

import java.util.List;
import java.util.Map;

import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.Trace;
import dev.vantage.profiler.trace.TraceDevice;
import dev.vantage.profiler.trace.TraceThread;

/**
 * One rank of a made-up data-parallel training run, computed as it is read (no memory per event), for tests and
 * benchmarks of cross-rank analysis. Each step is {@code ProfilerStep#N} holding {@code opsPerStep} ops on one
 * thread; every op launches one kernel on the compute stream, every eighth op is {@code record_param_comms}, whose
 * kernel {@code nccl:all_reduce} (as the Spyre and MPS backends name it) runs on the communication stream and lasts
 * longer than its op, so that it overlaps the compute kernels after it; every tenth op allocates. The straggler's
 * ops take {@link #STRAGGLER_FACTOR} times as long; other ranks differ by up to 2 % by a hash of the rank. Nothing is
 * random: the same arguments give the same trace.
 *
 * <p>With launches, each op also makes the runtime call {@code aclrtLaunchKernel} that launched its kernel, joined to
 * it by their flow id, as a real trace has: tools that keep only the kernels whose launch they find (HTA) need it.
 * Without, the kernels still carry a flow id, whose other end is missing.
 */
public final class FleetTrace implements Trace {

    /** The start of rank 0's first step, in nanoseconds since the Unix epoch. */
    public static final long START = 1_763_700_000_000_000_000L;
    /** How much slower the straggler's ops are. */
    public static final double STRAGGLER_FACTOR = 1.3;
    /** The name of the collective's kernel. */
    public static final String COLLECTIVE_KERNEL = "nccl:all_reduce";
    /** The name of the runtime call that launches a kernel. */
    public static final String LAUNCH = "aclrtLaunchKernel";
    /** The op names, by op index modulo their number; index 4 is the collective. */
    static final String[] OPS = {"aten::linear", "aten::mm", "aten::add", "aten::relu", "record_param_comms",
        "aten::gelu", "aten::layer_norm", "aten::softmax"};
    private static final long STEP_GAP_NS = 2_000;

    private final String jobId;
    private final int rank;
    private final int worldSize;
    private final int steps;
    private final int opsPerStep;
    private final long opPeriod;
    private final boolean launches;

    /**
     * @param jobId the trace's {@code vantage.job_id}, shared by the ranks; each rank's {@code vantage.run_id} is
     *        {@code <jobId>-rank<N>}
     * @param rank this rank
     * @param worldSize how many ranks the run has
     * @param steps how many profiler steps
     * @param opsPerStep how many ops each step holds (about 2.1 events each)
     * @param straggler the rank that is slow, or -1 for none
     */
    public FleetTrace(String jobId, int rank, int worldSize, int steps, int opsPerStep, int straggler) {
        this(jobId, rank, worldSize, steps, opsPerStep, straggler, false);
    }

    /**
     * @param jobId the trace's {@code vantage.job_id}, shared by the ranks; each rank's {@code vantage.run_id} is
     *        {@code <jobId>-rank<N>}
     * @param rank this rank
     * @param worldSize how many ranks the run has
     * @param steps how many profiler steps
     * @param opsPerStep how many ops each step holds (about 2.1 events each, 3.1 with launches)
     * @param straggler the rank that is slow, or -1 for none
     * @param launches whether each op has the runtime call that launched its kernel
     */
    public FleetTrace(String jobId, int rank, int worldSize, int steps, int opsPerStep, int straggler,
            boolean launches) {
        if (jobId == null || rank < 0 || rank >= worldSize || steps < 1 || opsPerStep < 1) {
            throw new IllegalArgumentException("rank " + rank + " of " + worldSize + ", " + steps + " steps of "
                    + opsPerStep + " ops");
        }
        this.jobId = jobId;
        this.rank = rank;
        this.worldSize = worldSize;
        this.steps = steps;
        this.opsPerStep = opsPerStep;
        this.launches = launches;
        double jitter = 1.0 + (Math.floorMod(rank * 2_654_435_761L, 1000) - 500) / 25_000.0;
        this.opPeriod = Math.round(10_000 * jitter * (rank == straggler ? STRAGGLER_FACTOR : 1.0));
    }

    /** Returns the number of ops a rank needs per step to hold about {@code events} events over {@code steps}. */
    public static int opsPerStepFor(long events, int steps) {
        return opsPerStepFor(events, steps, false);
    }

    /**
     * Returns the number of ops a rank needs per step to hold about {@code events} events over {@code steps}, with
     * or without launches.
     */
    public static int opsPerStepFor(long events, int steps, boolean launches) {
        return (int) Math.max(1, Math.round(events / ((launches ? 3.1 : 2.1) * steps)));
    }

    private long stepDuration() {
        return opsPerStep * opPeriod + 2 * STEP_GAP_NS;
    }

    private long stepStart(int s) {
        return START + s * (stepDuration() + STEP_GAP_NS);
    }

    private long opStart(int s, int j) {
        return stepStart(s) + STEP_GAP_NS + j * opPeriod;
    }

    private long opDuration() {
        return opPeriod * 8 / 10;
    }

    private long launchStart(int s, int j) {
        return opStart(s, j) + opPeriod / 4;
    }

    /** Ends before its kernel starts, half a period into the op. */
    private long launchDuration() {
        return opPeriod / 5;
    }

    private long kernelDuration(int j) {
        return j % OPS.length == 4 ? opPeriod * 3 / 2 : opPeriod * 6 / 10;
    }

    private static boolean allocates(int j) {
        return j % 10 == 9;
    }

    /** Part 0 the op, 1 its kernel, 2 its allocation, 3 its launch. */
    private long id(int s, int j, int part) {
        return 1 + steps + ((long) s * opsPerStep + j) * (launches ? 4 : 3) + part;
    }

    @Override
    public long processId() {
        return 1000 + rank;
    }

    @Override
    public String processName() {
        return "vantage fleet";
    }

    @Override
    public long startEpochNanos() {
        return START;
    }

    @Override
    public long endEpochNanos() {
        return stepStart(steps) + 2 * opPeriod;
    }

    @Override
    public List<TraceThread> threads() {
        return List.of(new TraceThread(1, "main", 0));
    }

    @Override
    public List<TraceDevice> devices() {
        return List.of(new TraceDevice("npu", rank % 8, true, Map.of("name", "Fleet NPU")));
    }

    @Override
    public long eventCount() {
        long allocations = (long) steps * (opsPerStep / 10);
        return steps + (launches ? 3L : 2L) * steps * opsPerStep + allocations;
    }

    @Override
    public long droppedEvents() {
        return 0;
    }

    @Override
    public Map<String, String> metadata() {
        return Map.of("vantage.job_id", jobId, "vantage.run_id", jobId + "-rank" + rank, "rank",
                Integer.toString(rank), "world_size", Integer.toString(worldSize));
    }

    @Override
    public EventCursor events() {
        return new Cursor();
    }

    /**
     * Steps first, then each step's ops with their allocations and launches, then the device work, as the platform
     * orders.
     */
    private final class Cursor implements EventCursor {
        private int phase = -1; // 0 steps, 1 host ops, 3 kernels
        private int s;
        private int j;
        private boolean memory;
        private boolean launch;

        @Override
        public boolean next() {
            if (phase == -1) {
                phase = 0;
                s = 0;
                return true;
            }
            if (phase == 0) {
                if (++s < steps) {
                    return true;
                }
                phase = 1;
                s = 0;
                j = 0;
                memory = false;
                return true;
            }
            if (phase == 1) {
                // the op, then its allocation (at +100 ns), then its launch (at a quarter period)
                if (!memory && !launch && allocates(j)) {
                    memory = true;
                    return true;
                }
                memory = false;
                if (!launch && launches) {
                    launch = true;
                    return true;
                }
                launch = false;
                if (advance()) {
                    return true;
                }
                phase = 3;
                s = 0;
                j = 0;
                return true;
            }
            return advance();
        }

        private boolean advance() {
            if (++j < opsPerStep) {
                return true;
            }
            j = 0;
            return ++s < steps;
        }

        private boolean step() {
            return phase == 0;
        }

        private boolean kernel() {
            return phase == 3;
        }

        @Override
        public long launchEpochNanos() {
            // a kernel's launching op is op j of step s
            return kernel() ? opStart(s, j) : -1;
        }

        @Override
        public String name() {
            if (step()) {
                return "ProfilerStep#" + s;
            }
            if (memory) {
                return "[memory]";
            }
            if (launch) {
                return LAUNCH;
            }
            if (kernel()) {
                return j % OPS.length == 4 ? COLLECTIVE_KERNEL : "fleet_kernel_" + OPS[j % OPS.length].substring(6);
            }
            return OPS[j % OPS.length];
        }

        @Override
        public EventKind kind() {
            return step() ? EventKind.USER_ANNOTATION : memory ? EventKind.MEMORY : launch ? EventKind.RUNTIME
                    : kernel() ? EventKind.KERNEL : EventKind.CPU_OP;
        }

        @Override
        public long threadId() {
            return 1;
        }

        @Override
        public long startEpochNanos() {
            if (step()) {
                return stepStart(s);
            }
            if (memory) {
                return opStart(s, j) + 100;
            }
            if (launch) {
                return launchStart(s, j);
            }
            return kernel() ? opStart(s, j) + opPeriod / 2 : opStart(s, j);
        }

        @Override
        public long durationNanos() {
            if (step()) {
                return stepDuration();
            }
            return memory ? 0 : launch ? launchDuration() : kernel() ? kernelDuration(j) : opDuration();
        }

        @Override
        public long eventId() {
            return step() ? 1 + s : id(s, j, memory ? 2 : launch ? 3 : kernel() ? 1 : 0);
        }

        @Override
        public long parentId() {
            return step() || kernel() ? -1 : memory || launch ? id(s, j, 0) : 1 + s;
        }

        @Override
        public long selfDurationNanos() {
            if (step()) {
                return stepDuration() - opsPerStep * opDuration();
            }
            if (launch) {
                return launchDuration();
            }
            return memory || kernel() ? 0 : opDuration() - (launches ? launchDuration() : 0);
        }

        @Override
        public long deviceSelfNanos() {
            return step() || memory || launch ? 0 : kernelDuration(j);
        }

        @Override
        public long deviceTotalNanos() {
            if (step()) {
                long total = 0;
                for (int k = 0; k < opsPerStep; k++) {
                    total += kernelDuration(k);
                }
                return total;
            }
            return memory || launch ? 0 : kernelDuration(j);
        }

        @Override
        public long correlationId() {
            return kernel() || launch ? id(s, j, 0) : eventId();
        }

        @Override
        public long flowId() {
            return kernel() || launch ? id(s, j, 0) : -1;
        }

        /** Every event of step s's ops, their work and the span itself belongs to step s. */
        @Override
        public int stepIndex() {
            return s;
        }

        @Override
        public boolean isStep() {
            return step();
        }

        @Override
        public boolean isCommunication() {
            return kernel() && j % OPS.length == 4;
        }

        @Override
        public String deviceType() {
            return kernel() || memory ? "npu" : "";
        }

        @Override
        public int deviceIndex() {
            return kernel() || memory ? rank % 8 : -1;
        }

        @Override
        public long streamId() {
            return kernel() ? (j % OPS.length == 4 ? 9 : 7) : -1;
        }








        @Override
        public long memoryBytes() {
            return memory ? 4096L * (1 + j % 7) : 0;
        }

        @Override
        public long memoryAddress() {
            return memory ? 0x10_0000L + id(s, j, 2) * 64 : 0;
        }

        @Override
        public long memoryTotalAllocated() {
            return memory ? 1L << (20 + j % 4) : 0;
        }

        @Override
        public long memoryTotalReserved() {
            return memory ? 1L << 22 : 0;
        }
    }
}
