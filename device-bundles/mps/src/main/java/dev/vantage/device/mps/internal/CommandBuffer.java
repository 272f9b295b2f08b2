package dev.vantage.device.mps.internal;

import java.util.ArrayList;
import java.util.List;

import dev.vantage.device.kit.ActivityRecord;
import dev.vantage.device.kit.emulation.EmulatedStream;
import dev.vantage.device.kit.emulation.Fence;
import dev.vantage.device.mps.driver.CompletedCommandBuffer;

/**
 * A command buffer: commands encoded on one stream while it is open, committed as a whole, and run by the
 * stream's worker in encoding order. Its GPU start and end times bracket its commands, and each command's own
 * start and end are sampled inside it, as Metal's counter sample buffers sample them, so each command gets a
 * device record of its own.
 *
 * <p>As a {@link Fence}, it is the last write of every block its commands write: {@link #submit()} commits it if
 * still open, and {@link #await()} waits until it has finished.
 */
final class CommandBuffer implements Fence {

    private final long id;
    private final MetalStream owner;
    private final List<Command> commands = new ArrayList<>();
    private volatile long ticket;

    /** Creates an open, empty buffer on a stream. */
    CommandBuffer(long id, MetalStream owner) {
        this.id = id;
        this.owner = owner;
    }

    /** Returns the buffer's id, unique on its device. */
    long id() {
        return id;
    }

    /** Returns how many commands it holds; called under the stream's lock while open. */
    int size() {
        return commands.size();
    }

    /** Adds a command; called under the stream's lock while open. */
    void add(Command command) {
        commands.add(command);
    }

    /** Notes the ticket its stream's worker gave it at the commit. */
    void committed(long streamTicket) {
        ticket = streamTicket;
    }

    @Override
    public EmulatedStream stream() {
        return owner.queue();
    }

    @Override
    public void submit() {
        owner.commitIfOpen(this, "dependency");
    }

    @Override
    public void await() {
        long t = ticket;
        if (t == 0) {
            throw new IllegalStateException("command buffer " + id + " on " + owner.queue().name()
                    + " was waited for before it was committed");
        }
        owner.queue().awaitQuietly(t);
    }

    /**
     * Runs the commands in order, each after the foreign work it depends on; stops at the first command that
     * fails, and throws its failure after the completed handlers ran, so the stream reports it at the next
     * synchronisation. Called on the stream's worker.
     */
    void run() {
        MetalDevice device = owner.device();
        long gpuStart = device.clock().now();
        RuntimeException failure = null;
        for (Command c : commands) {
            for (Fence f : c.dependencies()) {
                f.await();
            }
            long start = device.clock().now();
            try {
                c.body().run();
            } catch (RuntimeException | LinkageError | AssertionError e) {
                failure = new IllegalStateException("command buffer " + id + ": " + c.name() + " failed: "
                        + e.getMessage(), e);
                break;
            }
            long end = device.clock().now();
            if (c.correlation() >= 0) {
                device.emulated().record(new ActivityRecord(c.kind(), c.name(), device.index(), owner.id(), start,
                        end, c.correlation(), -1, -1, c.args()));
            }
        }
        long gpuEnd = device.clock().now();
        RuntimeException handlerFailure = device.completed(new CompletedCommandBuffer(device.index(), owner.index(),
                id, commands.size(), gpuStart, gpuEnd, failure == null ? null : failure.getMessage()));
        if (failure != null) {
            throw failure;
        }
        if (handlerFailure != null) {
            throw handlerFailure;
        }
    }
}
