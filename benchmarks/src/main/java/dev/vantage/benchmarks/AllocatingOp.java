package dev.vantage.benchmarks;

import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import dev.vantage.device.cpu.host.CpuHost;
import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.core.internal.StandaloneProfiler;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.Backends;

/**
 * What an op that allocates costs when a profile records memory. The op is {@code aten::add} of two 1-element
 * tensors on the CPU device's real backend: its output is allocated by the CPU's tracked allocator, which reports
 * the allocation to the profiler, and the output is closed right after, which frees it and reports the free. Modes,
 * compared in one run:
 * <ul>
 *   <li>{@code none}: no profiler core;</li>
 *   <li>{@code cpu}: a profile recording every op, not memory;</li>
 *   <li>{@code mem}: a profile recording every op and memory ({@code CPU} and {@code MEM}): the allocation and the
 *       free become {@code [memory]} events, the allocation's inside the op.</li>
 * </ul>
 * Each iteration records a fresh profile and ends with a garbage collection outside the measured time, as in
 * {@link DispatchOverhead}, with the same fixed heap.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar AllocatingOp -prof gc}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, warmups = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-Xmn3g", "-XX:+AlwaysPreTouch",
    "-XX:+UseParallelGC"})
@State(Scope.Thread)
public class AllocatingOp extends ProfiledIterations {

    @Param({"none", "cpu", "mem"})
    public String mode;

    private CpuHost host;
    private Tensor a;
    private Tensor b;

    @Setup(Level.Trial)
    public void setUp() {
        host = CpuHost.open();
        Backends.install(host.backend(), "device-cpu", "bench");
        if (!mode.equals("none")) {
            core = new StandaloneProfiler(64_000_000L);
            core.addAllocator(host.allocator());
        }
        a = Tensor.of(new float[] {1f}, 1);
        b = Tensor.of(new float[] {2f}, 1);
    }

    @Setup(Level.Iteration)
    public void startProfile() {
        if (core != null) {
            Set<Activity> activities = mode.equals("mem") ? Set.of(Activity.CPU, Activity.MEM) : Set.of(Activity.CPU);
            profile = core.profiler().profile().activities(activities).start();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        closeProfiler();
        Backends.uninstallAll();
        host.close();
    }

    @Benchmark
    public Tensor addAndFree() {
        Tensor c = a.add(b);
        c.close();
        return c;
    }
}
