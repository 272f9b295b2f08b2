package dev.vantage.profiler.dispatch;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * {@link DispatchThread}'s take-over of the primary field: each of two threads makes its next lookup the one that
 * takes the field over ({@link DispatchThread.Lookup#TAKE_OVER} lookups through the table), then looks itself up
 * again, while the other thread does the same. The thread that held the field reads it as the other writes it; a
 * thread that is the primary one already finds itself there and takes nothing over. Every lookup must give the
 * calling thread its own state, the same one each time: a state handed to a second thread would let two threads
 * write one state's slots (a runtime's {@code OpThread}, a recorder's buffer) with no synchronisation.
 *
 * <p>Result: r1 and r2 each thread's lookups: 1 when every one gave the thread its own state, 0 when one gave it
 * another thread's, -1 when two gave it different states of its own; r3 which thread holds the field afterwards
 * (1 or 2; 0 neither).
 */
@JCStressTest
@Description("Two threads take over the primary field while the other reads it")
@Outcome(id = "1, 1, 1", expect = ACCEPTABLE, desc = "each thread its own state; the first holds the field")
@Outcome(id = "1, 1, 2", expect = ACCEPTABLE, desc = "each thread its own state; the second holds the field")
@Outcome(expect = FORBIDDEN, desc = "a thread given another thread's state, or two states, or nobody holds the"
        + " field after a take-over")
@State
public class PrimaryTakeOverStress {

    private volatile Thread first;
    private volatile Thread second;

    @Actor
    public void firstThread(III_Result r) {
        first = Thread.currentThread();
        r.r1 = takeOverAndLookUp();
    }

    @Actor
    public void secondThread(III_Result r) {
        second = Thread.currentThread();
        r.r2 = takeOverAndLookUp();
    }

    @Arbiter
    public void holder(III_Result r) {
        DispatchThread.Lookup.State p = DispatchThread.Lookup.primaryOpaque();
        Thread holder = p == null ? null : p.thread();
        r.r3 = holder == first ? 1 : holder == second ? 2 : 0;
    }

    private static int takeOverAndLookUp() {
        Thread me = Thread.currentThread();
        DispatchThread before = DispatchThread.current();
        if (before.thread() != me) {
            return 0;
        }
        // the next lookup through the table is the one that takes the field over; a lookup that finds this
        // thread's state in the field already (it holds it) does not count and takes nothing over
        ((DispatchThread.Lookup.State) before).lookups = DispatchThread.Lookup.TAKE_OVER - 1;
        DispatchThread during = DispatchThread.current();
        DispatchThread after = DispatchThread.current();
        if (during.thread() != me || after.thread() != me) {
            return 0;
        }
        return during == before && after == before ? 1 : -1;
    }
}
