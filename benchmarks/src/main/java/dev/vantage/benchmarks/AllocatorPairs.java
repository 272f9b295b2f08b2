package dev.vantage.benchmarks;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import dev.vantage.device.kit.memory.CachingAllocator;
import dev.vantage.device.kit.memory.EmulatedHeap;
import dev.vantage.device.kit.memory.MemoryBlock;
import dev.vantage.tensor.Device;

/**
 * One allocation and its free on the device kit's caching allocator, with the cache warm: the fast path, in which
 * the block comes from the stream's cached segment and goes back to it. {@code size} is the request: 4 KiB from
 * the small pool, 4 MiB from the large one. {@code live} blocks stay allocated on the same stream around the pair,
 * so the lookup runs in a pool that holds that many neighbours. Run with {@code -t 2} for two threads, each on
 * its own stream of one device (they share the device's lock, as torch's threads share its mutex).
 * Run: {@code java -jar benchmarks/target/benchmarks.jar AllocatorPairs -prof gc}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(3)
public class AllocatorPairs {

    /** One device shared by every benchmark thread. */
    @State(Scope.Benchmark)
    public static class DeviceState {
        final CachingAllocator allocator = new CachingAllocator(new Device("npu", 0),
                new EmulatedHeap(0x1240_0000_0000L, 64L << 30));
        final AtomicInteger streams = new AtomicInteger();
    }

    /** A thread's stream, with its live blocks. */
    @State(Scope.Thread)
    public static class StreamState {
        @Param({"4096", "4194304"})
        public long size;

        @Param({"0", "64"})
        public int live;

        int stream;
        CachingAllocator allocator;

        @Setup
        public void setUp(DeviceState device) {
            allocator = device.allocator;
            stream = device.streams.getAndIncrement();
            for (int i = 0; i < live; i++) {
                allocator.allocate(size, stream);
            }
            allocator.free(allocator.allocate(size, stream));
        }
    }

    @Benchmark
    public long allocateAndFree(StreamState s) {
        MemoryBlock b = s.allocator.allocate(s.size, s.stream);
        s.allocator.free(b);
        return b.address();
    }
}
