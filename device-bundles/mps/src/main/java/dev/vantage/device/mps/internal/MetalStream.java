package dev.vantage.device.mps.internal;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.vantage.device.kit.emulation.DeviceBlock;
import dev.vantage.device.kit.emulation.EmulatedDevice;
import dev.vantage.device.kit.emulation.EmulatedStream;
import dev.vantage.device.kit.emulation.Fence;
import dev.vantage.device.mps.driver.MetalRecords;
import dev.vantage.device.mps.driver.SyncType;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.tensor.Tensor;

/**
 * One stream of the pool: a command queue, served by an {@link EmulatedStream} worker, and the command buffer
 * being encoded on it. Encoding and committing take this stream's lock only, so threads on different streams
 * never wait for each other; committing a buffer queues it on the worker, and waiting happens outside the lock.
 */
final class MetalStream {

    /** What an encode call did: the buffer the command went into, and the commit it caused, or null. */
    record Encoded(long buffer, Commit commit) {
    }

    /** A commit made under the lock, to be recorded (and maybe waited for) after it. */
    record Commit(CommandBuffer buffer, int commands, long ticket, long startNanos, String trigger) {
    }

    private final MetalDevice device;
    private final int index;
    private final EmulatedStream queue;
    private final int adaptiveCommands;
    private CommandBuffer open;

    /**
     * Creates a stream.
     *
     * @param index the stream's index in the pool, 0 being the default stream
     * @param adaptiveCommands how many commands a buffer holds when {@link SyncType#COMMIT_ADAPTIVE} commits it
     */
    MetalStream(MetalDevice device, int index, EmulatedStream queue, int adaptiveCommands) {
        this.device = device;
        this.index = index;
        this.queue = queue;
        this.adaptiveCommands = adaptiveCommands;
    }

    /** Returns the device. */
    MetalDevice device() {
        return device;
    }

    /** Returns the worker queue the stream's committed buffers run on. */
    EmulatedStream queue() {
        return queue;
    }

    /** Returns the stream's index in the pool, as the driver's callers address it. */
    int index() {
        return index;
    }

    /** Returns the stream id records and traces show: the index plus one. */
    long id() {
        return queue.id();
    }

    /** Returns how many commands the open buffer holds; 0 when none is open. */
    synchronized int openCommands() {
        return open == null ? 0 : open.size();
    }

    /**
     * Adds a command to the open buffer (opening one if needed), makes that buffer the last write of the blocks
     * the command writes, and commits it if {@code sync} says so. The caller then calls {@link #finish}.
     */
    Encoded encode(EventKind kind, String name, Map<String, String> args, long correlation, List<Fence> deps,
            Runnable body, Tensor[] writes, SyncType sync) {
        synchronized (this) {
            if (open == null) {
                open = new CommandBuffer(device.nextBufferId(), this);
            }
            CommandBuffer b = open;
            Map<String, String> full = new LinkedHashMap<>(args);
            full.put(MetalRecords.COMMAND_BUFFER, Long.toString(b.id()));
            b.add(new Command(kind, name, full, correlation, deps, body));
            for (Tensor t : writes) {
                DeviceBlock block = EmulatedDevice.block(t);
                if (block != null) {
                    block.written(b);
                }
            }
            Commit commit = switch (sync) {
                case NONE -> null;
                case COMMIT -> commitLocked("commit");
                case COMMIT_AND_WAIT -> commitLocked("wait");
                case COMMIT_ADAPTIVE -> b.size() >= adaptiveCommands ? commitLocked("adaptive") : null;
            };
            return new Encoded(b.id(), commit);
        }
    }

    /** Commits a buffer if it is still this stream's open one; for a stream whose work depends on it. */
    void commitIfOpen(CommandBuffer buffer, String trigger) {
        Commit c;
        synchronized (this) {
            c = open == buffer ? commitLocked(trigger) : null;
        }
        finish(c, false);
    }

    /**
     * Commits the open buffer as {@code sync} says; {@link SyncType#COMMIT_AND_WAIT} waits for everything committed
     * to the stream, even when no buffer was open.
     */
    void commit(SyncType sync, String trigger) {
        Commit c;
        synchronized (this) {
            c = switch (sync) {
                case NONE -> null;
                case COMMIT, COMMIT_AND_WAIT -> open == null ? null : commitLocked(trigger);
                case COMMIT_ADAPTIVE -> open != null && open.size() >= adaptiveCommands ? commitLocked(trigger)
                        : null;
            };
        }
        finish(c, sync == SyncType.COMMIT_AND_WAIT);
    }

    private Commit commitLocked(String trigger) {
        CommandBuffer b = open;
        long start = System.nanoTime();
        long ticket = queue.submit(b::run);
        b.committed(ticket);
        open = null;
        return new Commit(b, b.size(), ticket, start, trigger);
    }

    /**
     * Completes a commit outside the lock: waits for the stream if asked, then records the commit on the calling
     * thread while activity is recorded.
     *
     * @param commit the commit, or null when there was none
     * @throws RuntimeException a pending asynchronous failure of the stream, when waiting
     */
    void finish(Commit commit, boolean wait) {
        try {
            if (wait) {
                queue.await(commit != null ? commit.ticket() : queue.lastTicket(), Long.MAX_VALUE);
            }
        } finally {
            if (commit != null && device.emulated().recording()) {
                EmulatedDevice d = device.emulated();
                Map<String, String> args = new LinkedHashMap<>();
                args.put(MetalRecords.COMMAND_BUFFER, Long.toString(commit.buffer().id()));
                args.put(MetalRecords.COMMANDS, Integer.toString(commit.commands()));
                args.put(MetalRecords.TRIGGER, commit.trigger());
                d.recordRuntime(MetalRecords.COMMIT, id(), commit.startNanos(), System.nanoTime(),
                        d.nextCorrelation(), args);
            }
        }
    }
}
