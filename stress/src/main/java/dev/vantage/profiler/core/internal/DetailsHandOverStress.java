package dev.vantage.profiler.core.internal;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.List;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

import dev.vantage.profiler.dispatch.DispatchThread;
import dev.vantage.profiler.spi.ActivitySession;
import dev.vantage.trace.engine.HostThread;
import dev.vantage.trace.engine.store.Column;
import dev.vantage.trace.engine.store.Details;
import dev.vantage.trace.engine.store.HostRows;
import dev.vantage.profiler.core.internal.Recorder.ThreadBuffer;

/**
 * The hand-over of an event's details with its row: a thread reports two allocations through a fresh
 * {@link Recorder} (memory events, whose device, address and sizes go to the thread's details column) while the
 * thread that stops the window freezes the recorder. The frozen details must hold every counted event's details,
 * and the freeze must not fail: the details' size the snapshot takes is published with the row that needs it.
 *
 * <p>Result: r1 the events in the frozen cycle; r2 how many of them have their own details, whole; r3 0, or -1 when
 * freezing threw (the details' size seen ahead of the column it counts). r1 is -100 when the pool had no chunk to
 * give (the race did not run).
 */
@JCStressTest
@Description("Two memory events' details, against the freeze that takes them with the rows")
@Outcome(id = "0, 0, 0", expect = ACCEPTABLE, desc = "frozen before the first event was published")
@Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "the first event, with its details")
@Outcome(id = "2, 2, 0", expect = ACCEPTABLE, desc = "both events, each with its details")
@Outcome(expect = FORBIDDEN, desc = "an event without its details, or a freeze that threw: a half-published cycle")
@State
public class DetailsHandOverStress {

    private static final long[] ADDRESSES = {0x1000, 0x2000};
    private static final long[] BYTES = {64, 128};

    private final Recorder recorder = new Recorder(StressPool.POOL, false, false, null, new ActivitySession[0]);

    @Actor
    public void allocatingThread() {
        DispatchThread thread = DispatchThread.current();
        recorder.allocated(thread, "cpu", -1, ADDRESSES[0], BYTES[0], BYTES[0], BYTES[0]);
        recorder.allocated(thread, "cpu", -1, ADDRESSES[1], BYTES[1], BYTES[0] + BYTES[1], BYTES[0] + BYTES[1]);
    }

    @Actor
    public void stoppingThread(III_Result r) {
        List<ThreadBuffer.Snapshot> threads;
        try {
            threads = recorder.snapshot(System.nanoTime());
        } catch (RuntimeException e) {
            r.r3 = -1;
            return;
        }
        if (threads.isEmpty()) {
            return;
        }
        HostThread t = threads.get(0).hostThread();
        HostRows rows = t.rows();
        r.r1 = rows.size();
        r.r2 = whole(rows, t.details());
    }

    /** The state's blocks go back for the next states; a run that dropped events proves nothing, and fails. */
    @Arbiter
    public void noneDropped(III_Result r) {
        if (StressPool.releaseAll(recorder)) {
            r.r1 = -100;
        }
    }

    /** Counts the events whose details are there: a memory event's seven values, at its place, for its row. */
    private static int whole(HostRows rows, Column details) {
        int whole = 0;
        long[] memory = new long[6];
        for (int i = 0; i < rows.size(); i++) {
            long at = 7L * i;
            if (rows.hasDetails(i) && details != null && details.size() >= at + 7 && Details.slot(details, at) == i
                    && Details.readMemory(details, at, memory) && memory[2] == ADDRESSES[i]
                    && memory[3] == BYTES[i]) {
                whole++;
            }
        }
        return whole;
    }
}
