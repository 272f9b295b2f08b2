package dev.vantage.profiler.dispatch;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.lang.ref.WeakReference;
import java.util.concurrent.CountDownLatch;
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

    @Test
    public void aThreadWhoseIdCollidesWithALiveThreadsGetsAStateOfItsOwn() throws InterruptedException {
        CountDownLatch registered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<DispatchThread> residentBefore = new AtomicReference<>();
        AtomicReference<DispatchThread> residentAfter = new AtomicReference<>();
        Thread resident = new Thread(() -> {
            residentBefore.set(DispatchThread.current());
            registered.countDown();
            awaitQuietly(release);
            residentAfter.set(DispatchThread.current());
        });
        resident.start();
        registered.await();

        AtomicReference<DispatchThread> first = new AtomicReference<>();
        AtomicReference<DispatchThread> second = new AtomicReference<>();
        Runnable probe = () -> {
            first.set(DispatchThread.current());
            second.set(DispatchThread.current());
        };
        // a thread's id is handed out when it is constructed: construct threads until one lands on the resident's
        // entry of the table (ids modulo its 1,024 entries)
        Thread colliding = null;
        for (int i = 0; i < 4096 && colliding == null; i++) {
            Thread t = new Thread(probe);
            if (((t.getId() - resident.getId()) & 1023) == 0) {
                colliding = t;
            }
        }
        assertNotNull("no thread id landed on the resident's entry in 4,096 threads", colliding);
        colliding.start();
        colliding.join();
        release.countDown();
        resident.join();

        assertNotNull(first.get());
        assertSame(first.get(), second.get());
        assertSame(colliding, first.get().thread());
        assertNotSame(residentBefore.get(), first.get());
        assertSame(residentBefore.get(), residentAfter.get());
        assertSame(resident, residentAfter.get().thread());
    }

    @Test
    public void aFinishedThreadsStateIsNotKeptAlive() throws InterruptedException {
        AtomicReference<WeakReference<DispatchThread>> seen = new AtomicReference<>();
        Thread t = new Thread(() -> {
            DispatchThread state = DispatchThread.current();
            state.set(DispatchThread.newSlot(), new byte[1 << 20]);
            seen.set(new WeakReference<>(state));
        });
        t.start();
        t.join();
        t = null;
        WeakReference<DispatchThread> ref = seen.get();
        for (int i = 0; i < 50 && ref.get() != null; i++) {
            System.gc();
        }
        assertNull("the table held a finished thread's state", ref.get());
    }

    @Test
    public void theThreadThatTakesOverThePrimaryEntryAndTheOneThatHeldItKeepTheirOwnStates()
            throws InterruptedException {
        // each thread looks itself up often enough to take the primary entry over from the other (4,096 lookups
        // through the table), then checks every answer is its own state, while the other thread does the same
        int rounds = 3;
        int lookups = 10_000;
        java.util.concurrent.CyclicBarrier turn = new java.util.concurrent.CyclicBarrier(2);
        AtomicReference<String> wrong = new AtomicReference<>();
        Runnable work = () -> {
            DispatchThread mine = DispatchThread.current();
            for (int r = 0; r < rounds; r++) {
                for (int i = 0; i < lookups; i++) {
                    if (DispatchThread.current() != mine) {
                        wrong.compareAndSet(null, Thread.currentThread().getName() + " got another thread's state");
                    }
                }
                try {
                    turn.await();
                } catch (InterruptedException | java.util.concurrent.BrokenBarrierException e) {
                    wrong.compareAndSet(null, e.toString());
                }
            }
            if (mine.thread() != Thread.currentThread()) {
                wrong.compareAndSet(null, "a state of another thread");
            }
        };
        Thread a = new Thread(work, "a");
        Thread b = new Thread(work, "b");
        a.start();
        b.start();
        a.join();
        b.join();
        assertNull(wrong.get());
        // and this thread, which neither of them was, still gets its own
        assertSame(Thread.currentThread(), DispatchThread.current().thread());
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    public void exportsOnlyTheSlotsContractAndNoLookupMechanism() {
        java.util.Set<String> methods = new java.util.TreeSet<>();
        for (java.lang.reflect.Method m : DispatchThread.class.getDeclaredMethods()) {
            if (java.lang.reflect.Modifier.isPublic(m.getModifiers())) {
                methods.add(m.getName());
            }
        }
        assertEquals(java.util.Set.of("current", "newSlot", "thread", "get", "set"), methods);
        for (java.lang.reflect.Field f : DispatchThread.class.getDeclaredFields()) {
            boolean staticMutable = java.lang.reflect.Modifier.isStatic(f.getModifiers())
                    && !java.lang.reflect.Modifier.isFinal(f.getModifiers());
            assertFalse("the racy lookup state is internal: " + f, staticMutable);
        }
    }

    @Test
    public void onlyThisPackagesLookupMakesAState() {
        // sealed, rather than a constructor that checks its caller at run time: no subclass compiles elsewhere
        assertTrue(DispatchThread.class.isSealed());
        Class<?>[] permitted = DispatchThread.class.getPermittedSubclasses();
        assertEquals(1, permitted.length);
        assertEquals(DispatchThread.class.getPackage(), permitted[0].getPackage());
        assertFalse(java.lang.reflect.Modifier.isPublic(permitted[0].getModifiers()));
        assertSame(permitted[0], DispatchThread.current().getClass());
    }
}
