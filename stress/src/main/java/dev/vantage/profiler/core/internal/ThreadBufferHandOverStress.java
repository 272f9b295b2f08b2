package dev.vantage.profiler.core.internal;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

import dev.vantage.trace.engine.store.HostRows;
import dev.vantage.profiler.core.internal.Recorder.ThreadBuffer;

/**
 * {@link ThreadBuffer}'s hand-over of a full chunk: the recording thread writes the last row of a chunk, takes a
 * new chunk from the pool and writes the first row there, while the thread that stops the window takes the
 * buffer's chunks ({@link ThreadBuffer#snapshot()}). Whatever the snapshot counts must be there, whole, in the
 * chunks it holds: an event counted but torn, or counted in a chunk the snapshot does not hold, is a lost event.
 *
 * <p>Result: r1 the rows the snapshot counts beyond the ones recorded before the race (0 to 2); r2 and r3 the first
 * and second of them: 1 whole (start, name and kind as written), 0 not counted, -1 counted but torn, -2 counted in a
 * chunk the snapshot does not hold. r1 is -100 when the pool had no chunk to give (the race did not run).
 */
@JCStressTest
@Description("A full chunk's last row and the next chunk's first row, against the snapshot that takes the chunks")
@Outcome(id = "0, 0, 0", expect = ACCEPTABLE, desc = "taken before either event was published")
@Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "the full chunk's last row, whole; the next event not yet")
@Outcome(id = "2, 1, 1", expect = ACCEPTABLE, desc = "both events whole, the second in the chunk taken after the"
        + " first was full")
@Outcome(expect = FORBIDDEN, desc = "an event counted but torn, or counted in a chunk the snapshot lacks: lost")
@State
public class ThreadBufferHandOverStress {

    /** The first slot of the race: the last row of the first chunk. */
    private static final int LAST_OF_CHUNK = ThreadBuffer.CHUNK_EVENTS - 1;
    private static final int KIND = 1;
    private static final int FIRST_NAME = 11;
    private static final int SECOND_NAME = 12;
    private static final long FIRST_START = 1_000;
    private static final long SECOND_START = 2_000;
    private static final VarHandle RESERVED;
    private static final VarHandle SIZE;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(ThreadBuffer.class, MethodHandles.lookup());
            RESERVED = lookup.findVarHandle(ThreadBuffer.class, "reserved", int.class);
            SIZE = lookup.findVarHandle(ThreadBuffer.class, "size", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final ThreadBuffer buffer = new ThreadBuffer(0, Thread.currentThread(), StressPool.POOL, new Object());

    public ThreadBufferHandOverStress() {
        // one real event takes the first chunk; then the buffer is moved on to that chunk's last row rather than
        // written row by row (16,383 closed events at depth 0, all but the first left zero: nobody reads them)
        record(buffer, 10, 500);
        RESERVED.set(buffer, LAST_OF_CHUNK);
        SIZE.set(buffer, LAST_OF_CHUNK);
    }

    @Actor
    public void recordingThread() {
        record(buffer, FIRST_NAME, FIRST_START);
        record(buffer, SECOND_NAME, SECOND_START);
    }

    @Actor
    public void stoppingThread(III_Result r) {
        ThreadBuffer.Snapshot s = buffer.snapshot();
        HostRows rows = s.rows();
        int counted = s.size() - LAST_OF_CHUNK;
        r.r1 = counted;
        r.r2 = counted >= 1 ? row(rows, LAST_OF_CHUNK, FIRST_NAME, FIRST_START) : 0;
        r.r3 = counted >= 2 ? row(rows, LAST_OF_CHUNK + 1, SECOND_NAME, SECOND_START) : 0;
    }

    /** A pool out of memory would drop the events and hide the race: that run proves nothing, and fails.
     * Then the state's blocks go back for the next states. */
    @Arbiter
    public void noneDropped(III_Result r) {
        if (buffer.snapshot().dropped() != 0) {
            r.r1 = -100;
        }
        StressPool.release(buffer);
    }

    /** One closed event, as the recorder writes it: reserve, write and publish the row, end it. */
    private static void record(ThreadBuffer b, int name, long start) {
        int slot = b.reserve();
        if (slot >= 0) {
            b.started(slot, name, KIND, false, start);
        }
        b.end(b.handle(slot), start + 1);
    }

    private static int row(HostRows rows, int i, int name, long start) {
        try {
            return rows.start(i) == start && rows.name(i) == name && rows.kind(i) == KIND ? 1 : -1;
        } catch (NullPointerException e) {
            return -2;   // the row's chunk is not among the ones the snapshot took
        }
    }
}
