package dev.vantage.device.onnxruntime.internal;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import ai.onnxruntime.OnnxTensorLike;
import ai.onnxruntime.TensorInfo;
import dev.vantage.profiler.api.RecordFunction;

/**
 * A profiling session: a second ONNX Runtime session of a model ({@link ModelTwins}), created with profiling on,
 * that takes the runs of one window (or of part of a long window: see {@link ModelTwins#rotate}). It records each
 * run it takes as the CPU op {@code ort::run} and keeps the Java side of the run ({@link Run}) for the conversion.
 *
 * <p>Concurrency: a run {@link #enter enters} before it runs and {@link #exit exits} after; {@link #retire} closes
 * the gate and waits until the runs inside have left, so that {@link #end} (which asks ONNX Runtime to write its
 * profile) sees every run that went in. A run that finds the gate closed goes back to its session for the current
 * route. The run list is guarded by the twin's monitor; a run is milliseconds, so one lock per run is nothing.
 */
final class Twin {

    /** What a twin left once ended: its profile file and what the Java side saw. */
    record Ended(ModelTwins owner, String file, long originEpochNanos, List<Run> runs) {
    }

    final ModelTwins owner;
    final OrtWindow window;
    private final ProfilingSession session;
    private final long originEpochNanos;
    /** Runs after which the twin hands over to a fresh one; raised once the model's events per run are known. */
    volatile int maxRuns;

    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger started = new AtomicInteger();
    private final java.util.concurrent.atomic.AtomicBoolean rotationAsked = new java.util.concurrent.atomic.AtomicBoolean();
    private volatile boolean closed;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition empty = lock.newCondition();
    private final List<Run> runs = new ArrayList<>();
    private final Map<String, String> opArgs;

    Twin(ModelTwins owner, OrtWindow window, ProfilingSession session, int maxRuns) throws Exception {
        this.owner = owner;
        this.window = window;
        this.session = session;
        this.originEpochNanos = session.profilingStartNanos();
        this.maxRuns = maxRuns;
        this.opArgs = Map.of("ORT session", owner.name());
    }

    /** Takes a run in; false when the twin is retiring, and the run must look for the current route again. */
    boolean enter() {
        inside.incrementAndGet();
        if (closed) {
            exit();
            return false;
        }
        return true;
    }

    /** Lets a run out. */
    void exit() {
        if (inside.decrementAndGet() == 0 && closed) {
            lock.lock();
            try {
                empty.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    /** Runs a call on the profiling session, recorded as {@code ort::run}; between {@link #enter} and {@link #exit}. */
    <T, E extends Exception> T run(ProfilingSession.Call<T, E> call) throws E {
        ThreadState thread = ThreadState.current();
        T result;
        long start;
        long end;
        boolean recorded = RecordFunction.recording();
        try (RecordFunction op = record(call)) {
            // the recorder pushed the op's handle to every device session on opening it: ours keeps it here
            long correlation = thread.correlation();
            start = System.nanoTime();
            try {
                result = call.run(session);
            } finally {
                end = System.nanoTime();
                Run r = new Run(correlation, Thread.currentThread().getId(), thread.nativeTid(), start, end,
                        recorded || correlation >= 0);
                synchronized (this) {
                    runs.add(r);
                }
            }
        }
        if (started.incrementAndGet() >= maxRuns && rotationAsked.compareAndSet(false, true)) {
            owner.rotate(this);
        }
        return result;
    }

    /** The {@code ort::run} op, with its inputs' shapes and types when a profile records (and wants them). */
    private RecordFunction record(ProfilingSession.Call<?, ?> call) {
        if (!RecordFunction.recording() || !window.recordsShapes()) {
            return RecordFunction.op("ort::run", opArgs);
        }
        long[][] shapes = call.shapes(session);
        String[] types = call.types(session);
        if (shapes.length != types.length) {
            return RecordFunction.op("ort::run", opArgs);
        }
        return RecordFunction.op("ort::run", opArgs, shapes, types);
    }

    /** The shapes of the embedded ONNX Runtime's inputs, one per input; an input without tensor info has none. */
    static long[][] shapes(Map<String, ? extends OnnxTensorLike> inputs) {
        long[][] shapes = new long[inputs.size()][];
        Iterator<? extends OnnxTensorLike> it = inputs.values().iterator();
        for (int k = 0; k < shapes.length; k++) {
            TensorInfo info = it.next().getInfo();
            shapes[k] = info != null ? info.getShape() : new long[0];
        }
        return shapes;
    }

    /** The element types of the embedded ONNX Runtime's inputs, under torch's names. */
    static String[] types(Map<String, ? extends OnnxTensorLike> inputs) {
        String[] types = new String[inputs.size()];
        Iterator<? extends OnnxTensorLike> it = inputs.values().iterator();
        for (int k = 0; k < types.length; k++) {
            TensorInfo info = it.next().getInfo();
            types[k] = info != null ? typeName(info.type) : "";
        }
        return types;
    }

    /** torch's dtype names ({@code Input type}) for ONNX Runtime's Java types. */
    static String typeName(ai.onnxruntime.OnnxJavaType type) {
        return dev.vantage.device.onnxruntime.OrtTypes.torchName(type.name());
    }

    /** Returns how many runs the twin took. */
    int runCount() {
        return started.get();
    }

    /** Closes the gate and waits until no run is inside. */
    void retire() {
        closed = true;
        lock.lock();
        try {
            while (inside.get() > 0) {
                empty.awaitUninterruptibly();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Ends ONNX Runtime's profiling (it writes its file now) and closes the session; call after {@link #retire}.
     *
     * @throws Exception if ONNX Runtime fails to write its profile or to close
     */
    Ended end() throws Exception {
        String file = session.endProfiling();
        List<Run> taken;
        synchronized (this) {
            taken = List.copyOf(runs);
        }
        return new Ended(owner, file, originEpochNanos, taken);
    }
}
