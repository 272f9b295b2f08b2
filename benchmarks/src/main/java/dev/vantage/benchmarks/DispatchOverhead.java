package dev.vantage.benchmarks;

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

import dev.vantage.profiler.core.internal.StandaloneProfiler;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.internal.StandaloneBackends;

import jdk.jfr.Event;
import jdk.jfr.Recording;

/**
 * What one dispatched op costs the profiler. The op is {@code aten::add} on 1-element tensors with a kernel that
 * returns its first input, so the figures are dispatch and recording alone, with nothing allocated by the kernel.
 * Modes, compared in one run:
 * <ul>
 *   <li>{@code none}: no profiler core at all;</li>
 *   <li>{@code idle}: the profiler core active, no profile recording (the fast path holds no hook);</li>
 *   <li>{@code cpu}: a profile recording every op (each iteration starts a fresh profile);</li>
 *   <li>{@code shapes}: the same, recording the inputs' shapes and dtypes;</li>
 *   <li>{@code jfr}: no profiler; the op wrapped in a JDK Flight Recorder event with begin/commit, with a
 *       recording running that enables it without stack traces (the {@code cpu} mode records none).</li>
 * </ul>
 *
 * <p>The heap is fixed and touched before the first op ({@code -Xms4g -Xmx4g -Xmn3g -XX:+AlwaysPreTouch}) and
 * collected by the parallel collector, the same in every mode: the op itself allocates 176 B (the output tensor
 * and the call's arrays), and on a fresh heap the first forks paid for faulting in new pages while G1 grew its
 * young generation, which made {@code none} drift from 200 to 90 ns/op and slower than {@code idle}. A warm-up
 * fork per mode, whose figures are dropped, takes the first fork's slow start on a virtual machine (the
 * host backing the memory the guest freed). Each iteration ends with a garbage collection, in every mode alike,
 * outside the measured time.
 *
 * <p>Threads share one profiler and one profile, as in a served model; each thread has its own tensors. Run with
 * {@code -t 2} and {@code -t 8} to see whether recording scales: a shared cache line written per op would make
 * {@code cpu} grow faster than {@code none} with the thread count.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar DispatchOverhead -prof gc} (add {@code -t 2} or
 * {@code -t 8} for threads).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 3, warmups = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-Xmn3g", "-XX:+AlwaysPreTouch",
    "-XX:+UseParallelGC"})
public class DispatchOverhead {

    /** The JFR event of the {@code jfr} mode. */
    @jdk.jfr.Name("vantage.bench.Op")
    static final class OpEvent extends Event {
        @jdk.jfr.Label("op")
        String op;
    }

    /** The platform every thread dispatches through: the profiler core, its profile, or a JFR recording. */
    @State(Scope.Benchmark)
    public static class Platform extends ProfiledIterations {

        @Param({"none", "idle", "cpu", "shapes", "jfr"})
        public String mode;

        private Recording recording;
        boolean jfr;

        @Setup(Level.Trial)
        public void setUp() {
            StandaloneBackends.install(new Recordings.NoOpBackend());
            if (!mode.equals("none") && !mode.equals("jfr")) {
                core = new StandaloneProfiler(64_000_000L);
            }
            if (mode.equals("jfr")) {
                recording = new Recording();
                // like for like: the cpu mode records no stack either
                recording.enable(OpEvent.class).withoutStackTrace();
                recording.start();
                jfr = true;
            }
        }

        @Setup(Level.Iteration)
        public void startProfile() {
            if (mode.equals("cpu") || mode.equals("shapes")) {
                profile = core.profiler().profile().recordShapes(mode.equals("shapes")).start();
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            closeProfiler();
            if (recording != null) {
                recording.close();
            }
            StandaloneBackends.clear();
        }
    }

    /** One thread's inputs. */
    @State(Scope.Thread)
    public static class Inputs {
        final Tensor a = Tensor.of(new float[] {1f}, 1);
        final Tensor b = Tensor.of(new float[] {2f}, 1);
    }

    @Benchmark
    public Tensor dispatch(Platform platform, Inputs in) {
        if (platform.jfr) {
            OpEvent e = new OpEvent();
            e.begin();
            Tensor t = in.a.add(in.b);
            e.op = "aten::add";
            e.commit();
            return t;
        }
        return in.a.add(in.b);
    }
}
