package dev.vantage.profiler.dispatch;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;

import java.util.concurrent.atomic.AtomicReference;

import org.junit.Test;

/** Per-thread slots: one state per thread, slots reserved once, values kept per thread. */
public class DispatchThreadTest {

    @Test
    public void eachThreadHasOneStateOfItsOwn() throws InterruptedException {
        DispatchThread here = DispatchThread.current();
        assertSame(here, DispatchThread.current());
        assertSame(Thread.currentThread(), here.thread());
        AtomicReference<DispatchThread> there = new AtomicReference<>();
        Thread other = new Thread(() -> there.set(DispatchThread.current()));
        other.start();
        other.join();
        assertNotSame(here, there.get());
        assertSame(other, there.get().thread());
    }

    @Test
    public void aSlotHoldsOneValuePerThread() throws InterruptedException {
        int slot = DispatchThread.newSlot();
        DispatchThread here = DispatchThread.current();
        assertNull(here.get(slot));
        here.set(slot, "mine");
        assertEquals("mine", here.get(slot));
        AtomicReference<Object> seenThere = new AtomicReference<>("unset");
        Thread other = new Thread(() -> seenThere.set(DispatchThread.current().get(slot)));
        other.start();
        other.join();
        assertNull(seenThere.get());
        here.set(slot, null);
        assertNull(here.get(slot));
    }

    @Test
    public void slotsAreNeverHandedOutTwiceAndGrowPastTheFirstFew() {
        int first = DispatchThread.newSlot();
        int last = first;
        for (int i = 0; i < 20; i++) {
            int next = DispatchThread.newSlot();
            assertNotEquals(last, next);
            last = next;
        }
        DispatchThread.current().set(last, 42);
        assertEquals(42, DispatchThread.current().get(last));
        assertNull(DispatchThread.current().get(first));
    }

    @Test
    public void settingASlotNobodyReservedIsRefused() {
        int unreserved = DispatchThread.newSlot() + 1000;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DispatchThread.current().set(unreserved, "x"));
        assertEquals("slot " + unreserved + " was never reserved", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> DispatchThread.current().set(-1, "x"));
        assertNull(DispatchThread.current().get(unreserved));
    }
}
