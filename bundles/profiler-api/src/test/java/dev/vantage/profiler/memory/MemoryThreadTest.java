package dev.vantage.profiler.memory;

import static org.junit.Assert.assertEquals;

import java.util.concurrent.atomic.AtomicReference;

import org.junit.Test;

import dev.vantage.profiler.dispatch.DispatchThread;

public class MemoryThreadTest {

    @Test
    public void aThreadsCategoryAndLastAddressAreItsOwn() throws InterruptedException {
        DispatchThread here = DispatchThread.current();
        MemoryThread.setCategory(here, MemoryCategory.PARAMETER);
        MemoryThread.noteAddress(here, 0x1000);
        AtomicReference<MemoryCategory> there = new AtomicReference<>();
        AtomicReference<Long> thereAddress = new AtomicReference<>();
        Thread other = new Thread(() -> {
            there.set(MemoryThread.category(DispatchThread.current()));
            thereAddress.set(MemoryThread.takeAddress(DispatchThread.current()));
        });
        other.start();
        other.join();
        assertEquals(MemoryCategory.UNKNOWN, there.get());
        assertEquals(MemoryThread.NO_ADDRESS, (long) thereAddress.get());
        assertEquals(MemoryCategory.PARAMETER, MemoryThread.category(here));
        assertEquals(0x1000, MemoryThread.takeAddress(here));
        assertEquals("taking forgets", MemoryThread.NO_ADDRESS, MemoryThread.takeAddress(here));
        MemoryThread.setCategory(here, MemoryCategory.UNKNOWN);
    }
}
