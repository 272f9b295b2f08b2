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

import dev.vantage.profiler.dispatch.OpNames;
import dev.vantage.profiler.spi.ActivitySession;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.trace.engine.HostThread;
import dev.vantage.trace.engine.store.HostRows;
import dev.vantage.profiler.core.internal.Recorder.ThreadBuffer;

/**
 * The recorder's publication of a cycle: a thread records its first two ops through a fresh {@link Recorder} (the
 * first registers the thread's buffer, under the recorder's lock) while the thread that stops the window freezes
 * the recorder into a cycle, as {@code ProfileSession.stopTrace} does ({@link Recorder#snapshot(long)}), and takes
 * each thread's events as the trace engine takes them ({@link ThreadBuffer.Snapshot#hostThread()}). The frozen
 * cycle holds the thread once or not at all, and a prefix of its events, each whole.
 *
 * <p>Result: r1 the threads in the cycle (-2 when a registered thread's buffer was not there); r2 the events of the
 * thread; r3 1 when they are the thread's first events, in order and whole, -1 when not, 0 when there are none. r1
 * is -100 when the pool had no chunk to give (the race did not run).
 */
@JCStressTest
@Description("A thread's first events, recorded while another thread freezes the recorder into a cycle")
@Outcome(id = "0, 0, 0", expect = ACCEPTABLE, desc = "frozen before the thread registered its buffer")
@Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "the thread registered; no event published yet")
@Outcome(id = "1, 1, 1", expect = ACCEPTABLE, desc = "the first event, whole")
@Outcome(id = "1, 2, 1", expect = ACCEPTABLE, desc = "both events, whole and in order")
@Outcome(expect = FORBIDDEN, desc = "a thread twice or its buffer missing, an event torn, or a later event"
        + " without an earlier one: a half-published cycle")
@State
public class CyclePublicationStress {

    private static final int FIRST = OpNames.intern("stress::first");
    private static final int SECOND = OpNames.intern("stress::second");
    private static final int CPU_OP = EventKind.CPU_OP.id();

    private final Recorder recorder = new Recorder(StressPool.POOL, false, false, null, new ActivitySession[0]);

    @Actor
    public void recordingThread() {
        op(TestOp.of("stress::first"));
        op(TestOp.of("stress::second"));
    }

    @Actor
    public void stoppingThread(III_Result r) {
        List<ThreadBuffer.Snapshot> threads;
        try {
            threads = recorder.snapshot(System.nanoTime());
        } catch (NullPointerException e) {
            r.r1 = -2;   // the recorder counted a thread whose buffer it did not hold yet
            return;
        }
        r.r1 = threads.size();
        if (threads.size() == 1) {
            HostThread t = threads.get(0).hostThread();
            HostRows rows = t.rows();
            r.r2 = rows.size();
            r.r3 = rows.size() == 0 ? 0 : whole(rows) ? 1 : -1;
        }
    }

    /** The state's blocks go back for the next states; a run that dropped events proves nothing, and fails. */
    @Arbiter
    public void noneDropped(III_Result r) {
        if (StressPool.releaseAll(recorder)) {
            r.r1 = -100;
        }
    }

    /** An op without inputs, handed to the recorder as the dispatcher hands it (profiler-core's test op). */
    private void op(TestOp call) {
        long handle = recorder.onEnter(call);
        recorder.onExit(call, handle);
    }

    /** Whether every event is the thread's event of that place, with its name, kind, start and depth. */
    private static boolean whole(HostRows rows) {
        for (int i = 0; i < rows.size(); i++) {
            if (rows.name(i) != (i == 0 ? FIRST : SECOND) || rows.kind(i) != CPU_OP || rows.start(i) == 0
                    || rows.depth(i) != 0) {
                return false;
            }
        }
        return true;
    }
}
