package dev.vantage.device.kit.emulation;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import dev.vantage.device.kit.ActivityRecord;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.HostKernels;
import dev.vantage.tensor.spi.Kernel;
import dev.vantage.tensor.spi.KernelCall;
import dev.vantage.tensor.spi.KernelOps;
import dev.vantage.tensor.spi.Storage;

/**
 * One emulated device: its memory, clock, streams and activity records. A vendor's emulated driver keeps one per
 * device and maps its own API onto it.
 *
 * <p>A launch ({@link #launch}) returns as soon as the work is queued on its stream; the stream's worker runs it
 * after every earlier launch on that stream, and after the last write of every block it touches that another
 * stream made. While activity is enabled, each launch leaves two records: the runtime call on the launching
 * thread (host clock, with the external correlation id on top of that thread's stack) and the work on the stream
 * (device clock), joined by a correlation id. Whether a launch is recorded is decided when it is made.
 */
public final class EmulatedDevice {

    private static final Map<String, String> NO_ARGS = Map.of();

    private final Device device;
    private final HostKernels host;
    private final EmulatedClock clock;
    private final DeviceMemory memory;
    private final EmulatedStream[] streams;
    private final RecordBuffer records = new RecordBuffer();
    private final AtomicLong correlations = new AtomicLong();
    private final ThreadLocal<long[]> external = ThreadLocal.withInitial(() -> new long[9]);
    private volatile boolean recording;

    /**
     * Creates a device computing with the host kernels installed in the runtime when each launch is made: for
     * tests and for use without a framework.
     *
     * @param streamCount how many streams it has, ids 0 to {@code streamCount - 1}
     * @throws IllegalArgumentException if the stream count is not positive
     */
    public EmulatedDevice(Device device, EmulatedClock clock, DeviceMemory memory, int streamCount) {
        this(device, HostKernels.installed(), clock, memory, streamCount);
    }

    /**
     * Creates a device; no thread starts until work is submitted.
     *
     * @param host the host kernels its work runs (in the platform, the {@link HostKernels} service)
     * @param streamCount how many streams it has, ids 0 to {@code streamCount - 1}
     * @throws IllegalArgumentException if the stream count is not positive
     */
    public EmulatedDevice(Device device, HostKernels host, EmulatedClock clock, DeviceMemory memory,
            int streamCount) {
        if (streamCount <= 0) {
            throw new IllegalArgumentException("a device needs at least one stream, not " + streamCount);
        }
        this.device = device;
        this.host = java.util.Objects.requireNonNull(host, "host");
        this.clock = clock;
        this.memory = memory;
        this.streams = new EmulatedStream[streamCount];
        for (int i = 0; i < streamCount; i++) {
            // traces number streams from 1: HolisticTraceAnalysis takes stream > 0 for device work
            streams[i] = new EmulatedStream(device + " stream " + (i + 1), i + 1);
        }
    }

    /** Returns the device. */
    public Device device() {
        return device;
    }

    /** Returns the device's clock. */
    public EmulatedClock clock() {
        return clock;
    }

    /** Returns the device's memory. */
    public DeviceMemory memory() {
        return memory;
    }

    /** Returns how many streams the device has. */
    public int streamCount() {
        return streams.length;
    }

    /**
     * Returns a stream by index, 0 being the default. Its {@link EmulatedStream#id() id}, which records and traces
     * show, is the index plus one.
     *
     * @throws IllegalArgumentException if the device has no such stream
     */
    public EmulatedStream stream(int id) {
        if (id < 0 || id >= streams.length) {
            throw new IllegalArgumentException(device + " has no stream " + id + "; it has " + streams.length);
        }
        return streams[id];
    }

    // ---------------------------------------------------------------- activity records

    /** Starts recording into a buffer of {@code maxRecords}; see {@link RecordBuffer}. */
    public void enableActivity(long maxRecords) {
        records.reset(maxRecords);
        recording = true;
    }

    /** Stops recording new launches. */
    public void disableActivity() {
        recording = false;
    }

    /** Returns true while launches are recorded. */
    public boolean recording() {
        return recording;
    }

    /** Hands over the records. */
    public List<ActivityRecord> flushActivity() {
        return records.drain();
    }

    /** Returns the records the full buffer dropped. */
    public long droppedRecords() {
        return records.dropped();
    }

    /** Adds a record; for drivers that record their own kinds of work. */
    public void record(ActivityRecord record) {
        records.add(record);
    }

    /** Returns a new correlation id. */
    public long nextCorrelation() {
        return correlations.incrementAndGet();
    }

    /** Pushes an external correlation id on the calling thread's stack. */
    public void pushExternalCorrelation(long id) {
        long[] stack = external.get();
        int depth = (int) stack[0] + 1;
        if (depth >= stack.length) {
            stack = Arrays.copyOf(stack, stack.length * 2);
            external.set(stack);
        }
        stack[depth] = id;
        stack[0] = depth;
    }

    /** Pops the calling thread's external correlation id; does nothing on an empty stack. */
    public void popExternalCorrelation() {
        long[] stack = external.get();
        if (stack[0] > 0) {
            stack[0]--;
        }
    }

    /** Returns the external correlation id on top of the calling thread's stack, or -1. */
    public long externalCorrelation() {
        long[] stack = external.get();
        return stack[0] > 0 ? stack[(int) stack[0]] : -1;
    }

    /** Records a runtime call made on the calling thread, between two host times. */
    public void recordRuntime(String api, long streamId, long startNanos, long endNanos, long correlation,
            Map<String, String> args) {
        records.add(new ActivityRecord(EventKind.RUNTIME, api, device.index(), streamId, startNanos, endNanos,
                correlation, externalCorrelation(), Thread.currentThread().getId(), args));
    }

    // ---------------------------------------------------------------- launches

    /**
     * Launches work on a stream and returns its ticket at once.
     *
     * @param stream the stream id
     * @param api the runtime call's name, such as {@code aclrtLaunchKernel}
     * @param kind {@link EventKind#KERNEL}, {@link EventKind#GPU_MEMCPY} or {@link EventKind#GPU_MEMSET}
     * @param name the work's name in the trace
     * @param args the device's facts about the work
     * @param reads device tensors the work reads (others are ignored)
     * @param writes device tensors the work writes
     * @param body the work itself, run on the stream's worker
     */
    public long launch(int stream, String api, EventKind kind, String name, Map<String, String> args, Tensor[] reads,
            Tensor[] writes, Runnable body) {
        long t0 = System.nanoTime();
        EmulatedStream s = stream(stream);
        List<Fence> deps = dependencies(s, reads, writes);
        boolean rec = recording;
        long correlation = rec ? correlations.incrementAndGet() : -1;
        long ticket = s.submit(() -> {
            for (Fence f : deps) {
                f.await();
            }
            long a = clock.now();
            body.run();
            long b = clock.now();
            if (rec) {
                records.add(new ActivityRecord(kind, name, device.index(), s.id(), a, b, correlation, -1, -1, args));
            }
        });
        Fence done = s.fence(ticket);
        for (Tensor t : writes) {
            DeviceBlock block = block(t);
            if (block != null) {
                block.written(done);
            }
        }
        if (rec) {
            recordRuntime(api, s.id(), t0, System.nanoTime(), correlation, NO_ARGS);
        }
        return ticket;
    }

    /**
     * Runs a collective's transfer as a kernel on the device's last stream, its communication stream (compute
     * launches on stream 0), and waits for it: the profile shows the communication on a stream of its own,
     * overlapping compute, with the runtime call {@code api} on the calling thread. The launch is linked to the op
     * that called the collective through its external correlation id ({@code -1} for none), which the caller
     * captured on that op's thread; the transfer itself runs on the stream's worker. A transfer that fails is
     * rethrown as it was thrown, not as the stream's wrapped asynchronous failure.
     *
     * @param externalCorrelation the calling op's external correlation id, or -1
     * @param api the runtime call's name, such as {@code HcclAllReduce}
     * @param name the kernel's name in the trace, as the vendor's library names it
     * @param args the collective's facts the kernel carries
     * @param transfer the data movement (staging, the ring, writing back)
     */
    public void runCollective(long externalCorrelation, String api, String name, Map<String, String> args,
            Runnable transfer) {
        int stream = streamCount() - 1;
        RuntimeException[] failed = new RuntimeException[1];
        long ticket;
        if (externalCorrelation >= 0) {
            pushExternalCorrelation(externalCorrelation);
        }
        try {
            ticket = launch(stream, api, EventKind.KERNEL, name, args, new Tensor[0], new Tensor[0], () -> {
                try {
                    transfer.run();
                } catch (RuntimeException e) {
                    failed[0] = e;
                }
            });
        } finally {
            if (externalCorrelation >= 0) {
                popExternalCorrelation();
            }
        }
        stream(stream).await(ticket, Long.MAX_VALUE);
        if (failed[0] != null) {
            throw failed[0];
        }
    }

    /**
     * Returns the writes other streams made to the blocks, which work on {@code s} must wait for; each is submitted
     * first, so that nobody waits for work still being encoded.
     */
    public static List<Fence> dependencies(EmulatedStream s, Tensor[] reads, Tensor[] writes) {
        List<Fence> deps = new ArrayList<>(2);
        for (Tensor[] group : new Tensor[][] {reads, writes}) {
            for (Tensor t : group) {
                DeviceBlock block = block(t);
                Fence f = block == null ? null : block.lastWrite();
                if (f != null && f.stream() != s && !deps.contains(f)) {
                    f.submit();
                    deps.add(f);
                }
            }
        }
        return deps;
    }

    /** Returns a tensor's device block, or null for a host tensor or null. */
    public static DeviceBlock block(Tensor t) {
        return t != null && t.storage().handle() instanceof DeviceBlock b ? b : null;
    }

    /**
     * Runs {@link KernelOps#COPY_} between this device and the host, or within this device, on a stream, as a
     * driver's {@code memcpyAsync}: to the device, the host values are staged first (so the caller may change them
     * at once) and the copy returns; to the host, it waits for the copy, since the runtime reads the host tensor
     * right after.
     *
     * @param api the runtime call's name, such as {@code aclrtMemcpyAsync}
     * @throws IllegalArgumentException if the other side is another device
     * @throws RuntimeException an earlier asynchronous failure of the stream, when copying to the host
     */
    public void copy(int stream, String api, KernelCall call) {
        Tensor dst = call.input(0);
        Tensor src = call.input(1);
        Kernel copy = host.kernel(KernelOps.COPY_);
        boolean fromHost = src.device().equals(Device.CPU);
        boolean toHost = dst.device().equals(Device.CPU);
        if (!fromHost && !src.device().equals(device) || !toHost && !dst.device().equals(device)) {
            throw new IllegalArgumentException("aten::copy_: " + device + " copies to and from the host and within"
                    + " itself; copy " + src.device() + " to " + dst.device() + " through the host");
        }
        long bytes = (long) dst.numel() * dst.dtype().itemSize();
        Map<String, String> args = Map.of("bytes", Long.toString(bytes));
        if (fromHost) {
            Tensor staging = Tensor.wrap(Storage.create(Device.CPU, dst.dtype(), dst.numel()), dst.shape());
            copy.run(new KernelCall(KernelOps.COPY_, new Tensor[] {staging, src}, new Tensor[] {staging}, null, null));
            launch(stream, api, EventKind.GPU_MEMCPY, "Memcpy HtoD (Pageable -> Device)", args, new Tensor[0],
                    new Tensor[] {dst}, () -> copy.run(new KernelCall(KernelOps.COPY_, new Tensor[] {dst, staging},
                            new Tensor[] {dst}, null, null)));
        } else if (toHost) {
            long ticket = launch(stream, api, EventKind.GPU_MEMCPY, "Memcpy DtoH (Device -> Pageable)", args,
                    new Tensor[] {src}, new Tensor[0], () -> copy.run(call));
            stream(stream).await(ticket, Long.MAX_VALUE);
        } else {
            launch(stream, api, EventKind.GPU_MEMCPY, "Memcpy DtoD (Device -> Device)", args, new Tensor[] {src},
                    new Tensor[] {dst}, () -> copy.run(call));
        }
    }

    /** Returns the host kernels this device's work runs. */
    public HostKernels host() {
        return host;
    }

    /**
     * Returns the work that computes an op's results over device memory with the host's kernel, looked up now so
     * that a missing kernel fails the launch on the caller's thread.
     */
    public Runnable compute(String op, KernelCall call) {
        return EmulatedKernels.compute(host, op, call);
    }

    /** Returns the {@code bytes} fact of a tensor's size, for copy and fill records. */
    public static String bytes(Tensor t) {
        return Long.toString((long) t.numel() * t.dtype().itemSize());
    }

    /** Allocates a zero-filled storage in device memory; see {@link DeviceMemory#allocate}. */
    public Storage allocate(DType dtype, int n) {
        return memory.allocate(dtype, n);
    }

    /**
     * Waits until every stream has finished its work, or the timeout passed.
     *
     * @return true if the device is idle
     * @throws RuntimeException a stream's pending asynchronous failure
     */
    public boolean synchronize(long timeoutNanos) {
        long deadline = timeoutNanos == Long.MAX_VALUE ? Long.MAX_VALUE : System.nanoTime() + timeoutNanos;
        for (EmulatedStream s : streams) {
            long left = deadline == Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(0, deadline - System.nanoTime());
            if (!s.synchronize(left)) {
                return false;
            }
        }
        return true;
    }

    /** Stops every stream's worker after its queued work. */
    public void close() {
        for (EmulatedStream s : streams) {
            s.close();
        }
    }
}
