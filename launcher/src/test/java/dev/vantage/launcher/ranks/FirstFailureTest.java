package dev.vantage.launcher.ranks;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

public class FirstFailureTest {

    @Test
    public void exitsZeroWhenEveryRankExitsZero() {
        FirstFailure f = new FirstFailure();
        assertFalse(f.exited(1, 0));
        assertFalse(f.exited(0, 0));
        assertEquals(0, f.exitCode());
        assertEquals(-1, f.rank());
    }

    @Test
    public void theFirstRankToFailGivesTheCodeAndLaterFailuresDoNot() {
        FirstFailure f = new FirstFailure();
        assertFalse(f.exited(2, 0));
        assertTrue(f.exited(1, 3));
        // the ranks the launcher stopped end with SIGTERM's 143, a later real failure with its own code
        assertFalse(f.exited(0, 143));
        assertFalse(f.exited(3, 1));
        assertEquals(3, f.exitCode());
        assertEquals(1, f.rank());
    }

    @Test
    public void aRankKilledFirstCountsAsTheFailure() {
        FirstFailure f = new FirstFailure();
        assertTrue(f.exited(0, 137));
        assertFalse(f.exited(1, 2));
        assertEquals(137, f.exitCode());
    }
}
