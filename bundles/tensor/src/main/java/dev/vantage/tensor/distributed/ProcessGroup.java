package dev.vantage.tensor.distributed;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import dev.vantage.profiler.api.RecordFunction;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.Tensor;

/**
 * A group of ranks that run collectives together, as torch's default process group ({@code init_process_group} with
 * {@code env://}). Every rank creates one with the same world size and master address; {@link #init} returns when
 * all of them have met and formed the ring (see {@code docs/distributed.md}).
 *
 * <p>Collectives work in place on float32 or int64 tensors of any device: a tensor not contiguous on the host is
 * staged there by its device's {@link CollectiveBackend} and written back. All ranks must call the same collectives
 * in the same order. Each collective runs on the group's communication thread, in call order; the async forms
 * return a {@link Work} at once, the plain forms wait for it. Around each call the calling thread opens the profile
 * scopes {@code record_param_comms} and, inside it, {@code <backend>:<op>} ({@code gloo:all_reduce});
 * {@link CollectiveEvents} listeners get the collective's details.
 *
 * <p>Lifecycle: open after {@code init}; broken after a collective failed (a peer closed its connection or did not
 * answer within the timeout): every later collective then fails at once with a {@link DistributedException}, and
 * the connections are closed so that the other ranks fail too instead of waiting; closed after {@link #close()}.
 * Thread-safe: collectives may be called from several threads; their order is the order their calls entered.
 */
public final class ProcessGroup implements AutoCloseable {

    /** Used when {@code VANTAGE_LAUNCH_TIMEOUT_MS} is not set. */
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

    private final int rank;
    private final int worldSize;
    private final long timeoutMillis;
    private final String timeoutText;
    private final List<Integer> ranks;
    private final String ranksText;
    private final Ring ring;
    private final ExecutorService comm;
    private int nextSequence;
    private volatile DistributedException broken;
    private volatile boolean closed;

    private ProcessGroup(int rank, int worldSize, long timeoutMillis, Ring ring) {
        this.rank = rank;
        this.worldSize = worldSize;
        this.timeoutMillis = timeoutMillis;
        this.timeoutText = Collective.durationText(timeoutMillis);
        List<Integer> all = new ArrayList<>();
        for (int r = 0; r < worldSize; r++) {
            all.add(r);
        }
        this.ranks = Collections.unmodifiableList(all);
        this.ranksText = all.toString();
        this.ring = ring;
        this.comm = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "vantage-pg-rank" + rank + "-comm");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Joins the group the launcher describes in the environment: {@code RANK}, {@code WORLD_SIZE},
     * {@code MASTER_ADDR}, {@code MASTER_PORT} and, optionally, {@code VANTAGE_LAUNCH_TIMEOUT_MS} (60 s when unset).
     *
     * @throws IllegalStateException if a variable is missing or not valid; the message names it
     * @throws DistributedException if the rendezvous fails or times out
     */
    public static ProcessGroup initFromEnv() {
        return initFromEnv(System.getenv());
    }

    static ProcessGroup initFromEnv(Map<String, String> env) {
        int worldSize = envInt(env, "WORLD_SIZE", 1, Integer.MAX_VALUE);
        int rank = envInt(env, "RANK", 0, worldSize - 1);
        String addr = env.get("MASTER_ADDR");
        if (addr == null || addr.isBlank()) {
            throw new IllegalStateException("environment variable MASTER_ADDR is not set");
        }
        int port = envInt(env, "MASTER_PORT", 1, 65535);
        Duration timeout = env.get("VANTAGE_LAUNCH_TIMEOUT_MS") == null ? DEFAULT_TIMEOUT
                : Duration.ofMillis(envInt(env, "VANTAGE_LAUNCH_TIMEOUT_MS", 1, Integer.MAX_VALUE));
        return init(rank, worldSize, addr.trim(), port, timeout);
    }

    private static int envInt(Map<String, String> env, String name, int min, int max) {
        String text = env.get(name);
        if (text == null || text.isBlank()) {
            throw new IllegalStateException("environment variable " + name + " is not set");
        }
        try {
            int v = Integer.parseInt(text.trim());
            if (v < min || v > max) {
                throw new IllegalStateException("environment variable " + name + "=" + text + " is not in ["
                        + min + ", " + max + "]");
            }
            return v;
        } catch (NumberFormatException e) {
            throw new IllegalStateException("environment variable " + name + "=" + text + " is not an integer");
        }
    }

    /**
     * Joins a group: rank 0 listens on {@code masterAddr:masterPort}, the others connect to it, retrying until the
     * timeout. A world size of 1 opens no socket.
     *
     * @param timeout how long the rendezvous and every later socket read may take
     * @throws IllegalArgumentException if the rank is not in {@code [0, worldSize)}, the port not in
     *     {@code [1, 65535]} or the timeout not positive
     * @throws DistributedException if the rendezvous fails or times out; the message names this rank
     */
    public static ProcessGroup init(int rank, int worldSize, String masterAddr, int masterPort, Duration timeout) {
        Objects.requireNonNull(masterAddr, "masterAddr");
        Objects.requireNonNull(timeout, "timeout");
        if (worldSize < 1 || rank < 0 || rank >= worldSize) {
            throw new IllegalArgumentException("rank " + rank + " is not in a world of size " + worldSize);
        }
        if (masterPort < 1 || masterPort > 65535) {
            throw new IllegalArgumentException("master port must be in [1, 65535], not " + masterPort);
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, not " + timeout);
        }
        long millis = Math.max(1, timeout.toMillis());
        Ring ring = worldSize == 1 ? null : Rendezvous.connect(rank, worldSize, masterAddr, masterPort, millis);
        return new ProcessGroup(rank, worldSize, millis, ring);
    }

    /** Returns this process's rank, from 0. */
    public int rank() {
        return rank;
    }

    /** Returns the number of ranks. */
    public int worldSize() {
        return worldSize;
    }

    /** Returns the ranks of the group, {@code [0, 1, ..., worldSize - 1]}. */
    public List<Integer> ranks() {
        return ranks;
    }

    /** Returns the group's name as torch's profiles show it: {@code 0} for the default group. */
    public String name() {
        return "0";
    }

    /** Returns the group's description as torch's profiles show it: {@code default_pg}. */
    public String description() {
        return "default_pg";
    }

    /** Returns the backend serving host tensors: {@code gloo}. */
    public String backend() {
        return backend(Device.CPU);
    }

    /** Returns the backend serving a device's tensors: {@code gloo}, {@code hccl}, {@code spyre:gloo}, .... */
    public String backend(Device device) {
        return CollectiveBackends.forDevice(Objects.requireNonNull(device, "device").type()).name();
    }

    /** Returns how long a socket read may wait. */
    public Duration timeout() {
        return Duration.ofMillis(timeoutMillis);
    }

    // ---------------------------------------------------------------- collectives

    /**
     * Reduces a tensor over all ranks, in place: every rank ends with the same result.
     *
     * @throws IllegalArgumentException if the tensor is not float32 or int64, or {@code AVG} is asked of int64
     * @throws DistributedException if the collective fails or times out
     */
    public void allReduce(Tensor t, ReduceOp op) {
        allReduce(t, op, true);
    }

    /** {@link #allReduce} started in the background; wait on the returned work before using the tensor. */
    public Work allReduceAsync(Tensor t, ReduceOp op) {
        return allReduce(t, op, false);
    }

    private Work allReduce(Tensor t, ReduceOp op, boolean sync) {
        check(Collective.Kind.ALLREDUCE, t, op);
        return submit(Collective.Kind.ALLREDUCE, t, t.numel(), t.numel(), sync, (c, backend) -> {
            Tensor host = backend.toHost(t);
            HostData d = HostData.of(host);
            reduce(c, d, op);
            writeBack(backend, host, t);
        });
    }

    private void reduce(Collective c, HostData d, ReduceOp op) {
        if (worldSize > 1) {
            int[] b = bounds(d.length(), worldSize);
            ring.reduceScatter(c, d, b, 0, op);
            ring.allGather(c, d, b, 1);
        }
        if (op == ReduceOp.AVG) {
            d.divide(0, d.length(), worldSize);
        }
    }

    /**
     * Copies rank {@code src}'s tensor into every other rank's, in place.
     *
     * @throws IllegalArgumentException if {@code src} is not a rank of the group or the tensor not float32 or int64
     * @throws DistributedException if the collective fails or times out
     */
    public void broadcast(Tensor t, int src) {
        broadcast(t, src, true);
    }

    /** {@link #broadcast} started in the background. */
    public Work broadcastAsync(Tensor t, int src) {
        return broadcast(t, src, false);
    }

    private Work broadcast(Tensor t, int src, boolean sync) {
        check(Collective.Kind.BROADCAST, t, null);
        if (src < 0 || src >= worldSize) {
            throw new IllegalArgumentException("broadcast: source rank " + src + " is not in [0, " + worldSize + ")");
        }
        return submit(Collective.Kind.BROADCAST, t, t.numel(), t.numel(), sync, (c, backend) -> {
            Tensor host = backend.toHost(t);
            if (worldSize > 1) {
                ring.broadcast(c, HostData.of(host), src);
            }
            if (rank != src) {
                writeBack(backend, host, t);
            }
        });
    }

    /**
     * Gathers every rank's {@code in} into {@code out}: {@code out.get(r)} receives rank r's.
     *
     * @param out one tensor per rank, each with {@code in}'s number of elements and dtype
     * @throws IllegalArgumentException if {@code out} does not have one tensor per rank of that size and dtype
     * @throws DistributedException if the collective fails or times out
     */
    public void allGather(List<Tensor> out, Tensor in) {
        allGather(out, in, true);
    }

    /** {@link #allGather} started in the background. */
    public Work allGatherAsync(List<Tensor> out, Tensor in) {
        return allGather(out, in, false);
    }

    private Work allGather(List<Tensor> out, Tensor in, boolean sync) {
        check(Collective.Kind.ALLGATHER, in, null);
        List<Tensor> outs = checkList(Collective.Kind.ALLGATHER, "out", out, in);
        int n = in.numel();
        return submit(Collective.Kind.ALLGATHER, in, n, (long) n * worldSize, sync, (c, backend) -> {
            HostData all = HostData.allocate(in.dtype(), n * worldSize);
            all.copyFrom(HostData.of(backend.toHost(in)), 0, rank * n, n);
            if (worldSize > 1) {
                ring.allGather(c, all, uniformBounds(n), 0);
            }
            for (int r = 0; r < worldSize; r++) {
                Tensor t = outs.get(r);
                CollectiveBackend b = CollectiveBackends.forDevice(t.device().type());
                Tensor host = b.toHost(t);
                HostData.of(host).copyFrom(all, r * n, 0, n);
                writeBack(b, host, t);
            }
        });
    }

    /**
     * Reduces {@code in.get(r)} over all ranks into rank r's {@code out}; {@code in} is left as it was.
     *
     * @param in one tensor per rank, each with {@code out}'s number of elements and dtype
     * @throws IllegalArgumentException if {@code in} does not have one tensor per rank of that size and dtype
     * @throws DistributedException if the collective fails or times out
     */
    public void reduceScatter(Tensor out, List<Tensor> in, ReduceOp op) {
        reduceScatter(out, in, op, true);
    }

    /** {@link #reduceScatter} started in the background. */
    public Work reduceScatterAsync(Tensor out, List<Tensor> in, ReduceOp op) {
        return reduceScatter(out, in, op, false);
    }

    private Work reduceScatter(Tensor out, List<Tensor> in, ReduceOp op, boolean sync) {
        check(Collective.Kind.REDUCE_SCATTER, out, op);
        List<Tensor> ins = checkList(Collective.Kind.REDUCE_SCATTER, "in", in, out);
        int n = out.numel();
        return submit(Collective.Kind.REDUCE_SCATTER, out, (long) n * worldSize, n, sync, (c, backend) -> {
            HostData all = HostData.allocate(out.dtype(), n * worldSize);
            for (int r = 0; r < worldSize; r++) {
                Tensor t = ins.get(r);
                all.copyFrom(HostData.of(CollectiveBackends.forDevice(t.device().type()).toHost(t)), 0, r * n, n);
            }
            if (worldSize > 1) {
                ring.reduceScatter(c, all, uniformBounds(n), -1, op);
            }
            if (op == ReduceOp.AVG) {
                all.divide(rank * n, n, worldSize);
            }
            Tensor host = backend.toHost(out);
            HostData.of(host).copyFrom(all, rank * n, 0, n);
            writeBack(backend, host, out);
        });
    }

    /**
     * Returns when every rank has called it: an all-reduce of one element.
     *
     * @throws DistributedException if a rank does not arrive within the timeout
     */
    public void barrier() {
        barrier(true);
    }

    /** {@link #barrier} started in the background. */
    public Work barrierAsync() {
        return barrier(false);
    }

    private Work barrier(boolean sync) {
        return submit(Collective.Kind.BARRIER, null, 1, 1, sync,
                (c, backend) -> reduce(c, HostData.allocate(DType.FLOAT32, 1), ReduceOp.SUM));
    }

    /**
     * Closes the connections and stops the communication thread; collectives queued or running fail with a
     * {@link DistributedException}, and the other ranks' next collective fails as this rank is gone. Idempotent.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        if (ring != null) {
            ring.close();
        }
        comm.shutdown();
        try {
            comm.awaitTermination(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "ProcessGroup[rank " + rank + " of " + worldSize + "]";
    }

    // ---------------------------------------------------------------- machinery

    /** What a collective does on the communication thread. */
    @FunctionalInterface
    private interface Body {
        void run(Collective c, CollectiveBackend backend);
    }

    private void check(Collective.Kind kind, Tensor t, ReduceOp op) {
        Objects.requireNonNull(t, "tensor");
        if (t.dtype() != DType.FLOAT32 && t.dtype() != DType.INT64) {
            throw new IllegalArgumentException(kind.collectiveName + ": a " + t.dtype().profileName()
                    + " tensor is not supported; use float or long");
        }
        if (op == ReduceOp.AVG && t.dtype() != DType.FLOAT32) {
            throw new IllegalArgumentException(kind.collectiveName + ": AVG needs a float tensor, not "
                    + t.dtype().profileName());
        }
        if (kind != Collective.Kind.BROADCAST && kind != Collective.Kind.ALLGATHER) {
            Objects.requireNonNull(op, "op");
        }
    }

    private List<Tensor> checkList(Collective.Kind kind, String what, List<Tensor> list, Tensor like) {
        List<Tensor> copy = List.copyOf(Objects.requireNonNull(list, what));
        if (copy.size() != worldSize) {
            throw new IllegalArgumentException(kind.collectiveName + ": " + what + " has " + copy.size()
                    + " tensors, not one per rank (" + worldSize + ")");
        }
        for (int r = 0; r < copy.size(); r++) {
            Tensor t = copy.get(r);
            if (t.numel() != like.numel() || t.dtype() != like.dtype()) {
                throw new IllegalArgumentException(kind.collectiveName + ": " + what + "[" + r + "] has "
                        + t.numel() + " " + t.dtype().profileName() + " elements, not " + like.numel() + " "
                        + like.dtype().profileName());
            }
        }
        return copy;
    }

    private Work submit(Collective.Kind kind, Tensor t, long inNelems, long outNelems, boolean sync, Body body) {
        String deviceType = t == null ? Device.CPU.type() : t.device().type();
        CollectiveBackend backend = CollectiveBackends.forDevice(deviceType);
        String dtype = t == null || t.dtype() == DType.FLOAT32 ? "Float" : "Long";
        // torch's record_param_comms: a cpu_op carrying the collective's facts, with <backend>:<op> inside it
        boolean recording = RecordFunction.recording();
        Map<String, String> facts = recording ? facts(kind, inNelems, outNelems, dtype) : Map.of();
        // the tensor a collective sends, as the input torch's record_param_comms and its backend's scope record:
        // Input Dims and Input type, which the TensorBoard plugin's communication table reads on gloo:*/nccl:*
        // give the communication's size (a list of tensors, as reduce_scatter's input, is given as one flat input)
        long[][] shapes = t == null || !recording ? new long[0][]
                : new long[][] {inNelems == t.numel() ? toLongs(t.sizes()) : new long[] {inNelems}};
        String[] types = shapes.length == 0 ? new String[0] : new String[] {t.dtype().profileName()};
        try (RecordFunction comms = RecordFunction.op("record_param_comms", facts, shapes, types);
                RecordFunction op = RecordFunction.scope(backend.name() + ":" + kind.scopeName, Map.of(), shapes,
                        types)) {
            // inside the scopes, on the calling thread: what links the backend's device work to this op
            Object captured = t == null ? null : backend.capture(t);
            CollectiveWork work;
            synchronized (this) {
                if (closed) {
                    throw new DistributedException("rank " + rank + ": " + kind.collectiveName
                            + " failed: the process group is closed");
                }
                Collective c = new Collective(kind, nextSequence++, timeoutText);
                work = new CollectiveWork(c);
                long threadId = Thread.currentThread().getId();
                comm.execute(() -> execute(work, c, backend, dtype, inNelems, outNelems, threadId, captured, body));
            }
            if (sync) {
                work.await();
            }
            return work;
        }
    }

    private static long[] toLongs(int[] sizes) {
        long[] shape = new long[sizes.length];
        for (int i = 0; i < sizes.length; i++) {
            shape[i] = sizes[i];
        }
        return shape;
    }

    /** The arguments of torch's {@code record_param_comms} for a collective of this group. */
    private Map<String, String> facts(Collective.Kind kind, long inNelems, long outNelems, String dtype) {
        Map<String, String> f = new java.util.LinkedHashMap<>();
        f.put("Collective name", kind.collectiveName);
        f.put("In msg nelems", Long.toString(inNelems));
        f.put("Out msg nelems", Long.toString(outNelems));
        f.put("Group size", Integer.toString(worldSize));
        f.put("dtype", dtype);
        f.put("In split size", "[]");
        f.put("Out split size", "[]");
        f.put("Process Group Name", name());
        f.put("Process Group Description", description());
        f.put("Process Group Ranks", ranksText);
        f.put("Global rank start", "0");
        f.put("Global rank stride", "1");
        f.put("Rank", Integer.toString(rank));
        return f;
    }

    private void execute(CollectiveWork work, Collective c, CollectiveBackend backend, String dtype, long inNelems,
            long outNelems, long threadId, Object captured, Body body) {
        CollectiveListener[] listeners = CollectiveEvents.listeners();
        CollectiveInfo info = new CollectiveInfo(c.sequence(), c.name(), backend.name(), inNelems, outNelems,
                worldSize, dtype, name(), description(), ranksText, rank, threadId, System.nanoTime(), -1);
        if (listeners != null) {
            CollectiveEvents.started(listeners, info);
        }
        DistributedException failure = null;
        Throwable died = null;
        try {
            DistributedException earlier = broken;
            if (closed) {
                throw new DistributedException(c.prefix(rank) + " failed: the process group was closed");
            }
            if (earlier != null) {
                throw new DistributedException(c.prefix(rank) + " failed: the process group broke earlier ("
                        + earlier.getMessage() + ")", earlier);
            }
            backend.execute(info, captured, () -> body.run(c, backend));
        } catch (DistributedException e) {
            failure = e;
        } catch (Throwable e) {
            died = e;
        } finally {
            // whatever happened here (an Error while reporting one included), the caller waiting on the work is
            // released with the cause
            try {
                if (died != null) {
                    failure = new DistributedException(c.prefix(rank) + " failed: " + died, died);
                }
                if (failure != null && broken == null) {
                    // the other ranks wait for this one: closing the ring fails them now rather than at their
                    // timeout
                    broken = failure;
                    if (ring != null) {
                        ring.close();
                    }
                }
                if (listeners != null) {
                    CollectiveEvents.completed(listeners, info.ended(System.nanoTime()), failure);
                }
            } finally {
                work.complete(failure, died);
            }
        }
    }

    private static void writeBack(CollectiveBackend backend, Tensor host, Tensor t) {
        if (host == t) {
            t.storage().bumpVersion();
        } else {
            backend.fromHost(host, t);
        }
    }

    /** Chunk bounds that split {@code length} elements into {@code parts} nearly equal chunks. */
    static int[] bounds(int length, int parts) {
        int[] b = new int[parts + 1];
        for (int i = 0; i <= parts; i++) {
            b[i] = (int) ((long) i * length / parts);
        }
        return b;
    }

    private int[] uniformBounds(int n) {
        int[] b = new int[worldSize + 1];
        for (int i = 0; i <= worldSize; i++) {
            b[i] = i * n;
        }
        return b;
    }
}
