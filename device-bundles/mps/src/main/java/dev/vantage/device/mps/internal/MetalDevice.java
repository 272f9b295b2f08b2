package dev.vantage.device.mps.internal;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import dev.vantage.device.kit.emulation.EmulatedClock;
import dev.vantage.device.kit.emulation.EmulatedDevice;
import dev.vantage.device.kit.emulation.Fence;
import dev.vantage.device.mps.driver.CompletedCommandBuffer;
import dev.vantage.device.mps.driver.MetalRecords;
import dev.vantage.device.mps.driver.SyncType;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.Kernel;
import dev.vantage.tensor.spi.KernelCall;
import dev.vantage.tensor.spi.KernelOps;
import dev.vantage.tensor.spi.Storage;

/**
 * One emulated Metal device: an {@link EmulatedDevice} (unified memory, clock, activity records), a pool of
 * {@link MetalStream}s handed to threads by a {@link StreamPool}, and the completed handlers of its command
 * buffers. {@link #encode} is the emulated driver's one way of putting work on the GPU; the driver's kernels,
 * copies and fills all go through it.
 */
final class MetalDevice {

    private final EmulatedDevice device;
    private final MetalStream[] streams;
    private final StreamPool pool;
    private final long recommendedMaxMemory;
    private final int adaptiveCommands;
    private final AtomicLong bufferIds = new AtomicLong();
    private final List<Consumer<CompletedCommandBuffer>> handlers = new CopyOnWriteArrayList<>();

    /**
     * Creates a device over an emulated one, with a Metal stream over each of its streams.
     *
     * @param adaptiveCommands the commands a buffer holds when an adaptive commit commits it, 1 or more
     * @param recommendedMaxMemory the working-set size the device recommends, in bytes
     */
    MetalDevice(EmulatedDevice device, int adaptiveCommands, long recommendedMaxMemory) {
        if (adaptiveCommands < 1) {
            throw new IllegalArgumentException("an adaptive commit needs 1 command or more, not " + adaptiveCommands);
        }
        this.device = device;
        this.adaptiveCommands = adaptiveCommands;
        this.recommendedMaxMemory = recommendedMaxMemory;
        this.streams = new MetalStream[device.streamCount()];
        for (int i = 0; i < streams.length; i++) {
            streams[i] = new MetalStream(this, i, device.stream(i), adaptiveCommands);
        }
        this.pool = new StreamPool(streams.length);
    }

    /** Returns the emulated device underneath. */
    EmulatedDevice emulated() {
        return device;
    }

    /** Returns the device index. */
    int index() {
        return device.device().index();
    }

    /** Returns the device clock. */
    EmulatedClock clock() {
        return device.clock();
    }

    /** Returns the working-set size the device recommends, in bytes. */
    long recommendedMaxMemory() {
        return recommendedMaxMemory;
    }

    /** Returns how many commands an adaptive commit waits for. */
    int adaptiveCommands() {
        return adaptiveCommands;
    }

    /** Returns a new command buffer id. */
    long nextBufferId() {
        return bufferIds.incrementAndGet();
    }

    /** Returns how many streams the pool has. */
    int streamCount() {
        return streams.length;
    }

    /**
     * Returns a stream.
     *
     * @throws IllegalArgumentException if the device has no such stream
     */
    MetalStream stream(int id) {
        if (id < 0 || id >= streams.length) {
            throw new IllegalArgumentException(device.device() + " has no stream " + id + "; its pool has "
                    + streams.length + " streams");
        }
        return streams[id];
    }

    /** Returns the calling thread's stream from the pool. */
    int currentStream() {
        return pool.current();
    }

    /**
     * Encodes work into a stream's open command buffer. First, the blocks it touches that another stream's
     * command buffer writes make that buffer commit (if still open) and become dependencies the work waits for.
     * While activity is recorded, a runtime record of the call is left on the calling thread, joined to the
     * command's device record by a correlation id.
     *
     * @param api the runtime call's name for its record, one of {@link MetalRecords}
     * @param kind {@link EventKind#KERNEL}, {@link EventKind#GPU_MEMCPY} or {@link EventKind#GPU_MEMSET}
     * @param name the command's name in traces
     * @param args the command's facts; the command buffer id is added
     * @param reads device tensors it reads (others are ignored)
     * @param writes device tensors it writes
     * @param body the work, run on the stream's worker once the buffer is committed
     * @param sync what to do with the buffer afterwards
     * @return the id of the command buffer the work went into
     * @throws RuntimeException a pending asynchronous failure of the stream, for {@link SyncType#COMMIT_AND_WAIT}
     */
    long encode(int stream, String api, EventKind kind, String name, Map<String, String> args, Tensor[] reads,
            Tensor[] writes, Runnable body, SyncType sync) {
        long t0 = System.nanoTime();
        MetalStream s = stream(stream);
        List<Fence> deps = EmulatedDevice.dependencies(s.queue(), reads, writes);
        boolean rec = device.recording();
        long correlation = rec ? device.nextCorrelation() : -1;
        MetalStream.Encoded e = s.encode(kind, name, args, correlation, deps, body, writes, sync);
        if (rec) {
            device.recordRuntime(api, s.id(), t0, System.nanoTime(), correlation,
                    Map.of(MetalRecords.COMMAND_BUFFER, Long.toString(e.buffer())));
        }
        s.finish(e.commit(), sync == SyncType.COMMIT_AND_WAIT);
        return e.buffer();
    }

    /**
     * Runs a collective's transfer as a command buffer of its own on the pool's last stream, committed and waited
     * for, so the profile shows the communication on its own stream; linked to the calling op through its
     * external correlation id ({@code -1} for none). A transfer that fails is rethrown as it was thrown.
     */
    void runCollective(long externalCorrelation, String api, String name, Map<String, String> args,
            Runnable transfer) {
        RuntimeException[] failed = new RuntimeException[1];
        if (externalCorrelation >= 0) {
            device.pushExternalCorrelation(externalCorrelation);
        }
        try {
            encode(streams.length - 1, api, EventKind.KERNEL, name, args, new Tensor[0], new Tensor[0], () -> {
                try {
                    transfer.run();
                } catch (RuntimeException e) {
                    failed[0] = e;
                }
            }, SyncType.COMMIT_AND_WAIT);
        } finally {
            if (externalCorrelation >= 0) {
                device.popExternalCorrelation();
            }
        }
        if (failed[0] != null) {
            throw failed[0];
        }
    }

    /**
     * Encodes {@link KernelOps#COPY_} between this device and the host, or within this device: to the device, the
     * host values are staged at once (so the caller may change them) and {@code sync} applies; to the host, the
     * buffer is committed and waited for, since the runtime reads the host tensor right after.
     *
     * @throws IllegalArgumentException if the other side is another device
     * @throws RuntimeException a pending asynchronous failure of the stream, when copying to the host
     */
    void copy(int stream, KernelCall call, SyncType sync) {
        Tensor dst = call.input(0);
        Tensor src = call.input(1);
        Device self = device.device();
        boolean fromHost = src.device().equals(Device.CPU);
        boolean toHost = dst.device().equals(Device.CPU);
        if (!fromHost && !src.device().equals(self) || !toHost && !dst.device().equals(self)) {
            throw new IllegalArgumentException("aten::copy_: " + self + " copies to and from the host and within"
                    + " itself; copy " + src.device() + " to " + dst.device() + " through the host");
        }
        Kernel host = device.host().kernel(KernelOps.COPY_);
        String bytes = EmulatedDevice.bytes(dst);
        if (fromHost) {
            Tensor staging = Tensor.wrap(Storage.create(Device.CPU, dst.dtype(), dst.numel()), dst.shape());
            host.run(new KernelCall(KernelOps.COPY_, new Tensor[] {staging, src}, new Tensor[] {staging}, null, null));
            encode(stream, MetalRecords.BLIT_COPY, EventKind.GPU_MEMCPY, "Memcpy HtoD (CPU -> MPS)",
                    Map.of("bytes", bytes), new Tensor[0], new Tensor[] {dst},
                    () -> host.run(new KernelCall(KernelOps.COPY_, new Tensor[] {dst, staging}, new Tensor[] {dst},
                            null, null)), sync);
        } else if (toHost) {
            encode(stream, MetalRecords.BLIT_COPY, EventKind.GPU_MEMCPY, "Memcpy DtoH (MPS -> CPU)",
                    Map.of("bytes", bytes), new Tensor[] {src}, new Tensor[0], () -> host.run(call),
                    SyncType.COMMIT_AND_WAIT);
        } else {
            encode(stream, MetalRecords.BLIT_COPY, EventKind.GPU_MEMCPY, "Memcpy DtoD (MPS -> MPS)",
                    Map.of("bytes", bytes), new Tensor[] {src}, new Tensor[] {dst}, () -> host.run(call), sync);
        }
    }

    /** Commits a stream's open buffer as {@code sync} says; see {@link MetalStream#commit}. */
    void commit(int stream, SyncType sync) {
        stream(stream).commit(sync, sync == SyncType.COMMIT_AND_WAIT ? "wait"
                : sync == SyncType.COMMIT_ADAPTIVE ? "adaptive" : "commit");
    }

    /**
     * Commits every stream's open buffer, then waits until every stream has finished, or the timeout passed.
     *
     * @return true if the device is idle
     * @throws RuntimeException a stream's pending asynchronous failure
     */
    boolean synchronize(long timeoutNanos) {
        for (MetalStream s : streams) {
            s.commit(SyncType.COMMIT, "synchronize");
        }
        return device.synchronize(timeoutNanos);
    }

    /** Adds a completed handler. */
    void addHandler(Consumer<CompletedCommandBuffer> handler) {
        handlers.add(Objects.requireNonNull(handler, "handler"));
    }

    /** Removes a completed handler. */
    void removeHandler(Consumer<CompletedCommandBuffer> handler) {
        handlers.remove(handler);
    }

    /**
     * Hands a finished buffer to every handler; called on the stream's worker.
     *
     * @return the first handler's failure, or null
     */
    RuntimeException completed(CompletedCommandBuffer buffer) {
        RuntimeException first = null;
        for (Consumer<CompletedCommandBuffer> h : handlers) {
            try {
                h.accept(buffer);
            } catch (RuntimeException e) {
                if (first == null) {
                    first = new IllegalStateException("a completed handler of command buffer " + buffer.id()
                            + " failed: " + e.getMessage(), e);
                }
            }
        }
        return first;
    }

    /** Commits what is open and stops every stream's worker after its queued work. */
    void close() {
        for (MetalStream s : streams) {
            try {
                s.commit(SyncType.COMMIT, "close");
            } catch (IllegalStateException e) {
                // the stream is closed already
            }
        }
        device.close();
    }
}
