package dev.vantage.profiler.core.internal;

import java.util.function.Supplier;

import dev.vantage.profiler.dispatch.CallKind;
import dev.vantage.profiler.dispatch.Dispatch;
import dev.vantage.profiler.dispatch.DispatchHook;
import dev.vantage.profiler.dispatch.DispatchThread;
import dev.vantage.profiler.dispatch.OpCall;
import dev.vantage.profiler.dispatch.OpNames;

/** An op dispatched through the fast path as a runtime would, with the shapes and links a test gives it. */
final class TestOp implements OpCall {

    private final String name;
    private final long[][] shapes;
    private final long sequence;
    private final long forwardThread;

    TestOp(String name, long[][] shapes, long sequence, long forwardThread) {
        this.name = name;
        this.shapes = shapes;
        this.sequence = sequence;
        this.forwardThread = forwardThread;
    }

    static TestOp of(String name, long[]... shapes) {
        return new TestOp(name, shapes, -1, -1);
    }

    /** Runs {@code body} as the op's kernel, with every published hook around it. */
    <T> T call(Supplier<T> body) {
        DispatchHook[] hooks = Dispatch.hooks();
        if (hooks == null) {
            return body.get();
        }
        long[] handles = new long[hooks.length];
        Dispatch.enter(hooks, this, handles);
        try {
            return body.get();
        } finally {
            Dispatch.exit(hooks, this, handles);
        }
    }

    void call(Runnable body) {
        call(() -> {
            body.run();
            return null;
        });
    }

    @Override
    public DispatchThread thread() {
        return DispatchThread.current();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int nameId() {
        return OpNames.intern(name);
    }

    @Override
    public CallKind kind() {
        return CallKind.OP;
    }

    @Override
    public String dispatchKey() {
        return "CPU";
    }

    @Override
    public int deviceIndex() {
        return -1;
    }

    @Override
    public long sequenceNumber() {
        return sequence;
    }

    @Override
    public long forwardThreadId() {
        return forwardThread;
    }

    @Override
    public int inputCount() {
        return shapes.length;
    }

    @Override
    public int inputRank(int index) {
        return shapes[index].length;
    }

    @Override
    public long inputDim(int index, int dim) {
        return shapes[index][dim];
    }

    @Override
    public long[] inputShape(int index) {
        return shapes[index].clone();
    }

    @Override
    public String inputType(int index) {
        return shapes[index].length == 0 ? "Scalar" : "float";
    }
}
