package dev.vantage.tensor.internal;

import dev.vantage.profiler.spi.CallKind;
import dev.vantage.profiler.spi.OpCall;
import dev.vantage.tensor.DispatchKey;
import dev.vantage.tensor.Tensor;

/**
 * The op being dispatched, as dispatch hooks see it. One frame per thread and nesting level, reused from call to
 * call, so that calling hooks allocates nothing; input shapes are copied only when a hook asks for them.
 */
final class CallFrame implements OpCall {

    private static final DispatchKey[] KEYS = DispatchKey.values();

    OpDef op;
    int key;
    int deviceIndex;
    Tensor in0;
    Tensor in1;
    long[] handles = new long[2];

    @Override
    public String name() {
        return op.name();
    }

    @Override
    public int nameId() {
        return op.nameId();
    }

    @Override
    public CallKind kind() {
        return CallKind.OP;
    }

    @Override
    public String dispatchKey() {
        return KEYS[key].name();
    }

    @Override
    public int deviceIndex() {
        return deviceIndex;
    }

    @Override
    public long sequenceNumber() {
        return -1;
    }

    @Override
    public long forwardThreadId() {
        return -1;
    }

    @Override
    public int inputCount() {
        return op.arity();
    }

    @Override
    public int inputRank(int index) {
        return input(index).dim();
    }

    @Override
    public long inputDim(int index, int dim) {
        return input(index).size(dim);
    }

    private Tensor input(int index) {
        if (index < 0 || index >= op.arity()) {
            throw new IndexOutOfBoundsException(op.name() + " has " + op.arity() + " inputs, not " + (index + 1));
        }
        return index == 0 ? in0 : in1;
    }

    @Override
    public long[] inputShape(int index) {
        return input(index).shape();
    }

    @Override
    public String inputType(int index) {
        return input(index).dtype();
    }

    /** The frames of one thread, one per nesting level. */
    static final class Stack {
        private CallFrame[] frames = new CallFrame[8];
        private int depth;

        CallFrame push(OpDef op, int key, int deviceIndex, Tensor a, Tensor b, int hookCount) {
            if (depth == frames.length) {
                frames = java.util.Arrays.copyOf(frames, depth * 2);
            }
            CallFrame f = frames[depth];
            if (f == null) {
                f = new CallFrame();
                frames[depth] = f;
            }
            depth++;
            f.op = op;
            f.key = key;
            f.deviceIndex = deviceIndex;
            f.in0 = a;
            f.in1 = b;
            if (f.handles.length < hookCount) {
                f.handles = new long[hookCount];
            }
            return f;
        }

        void pop() {
            CallFrame f = frames[--depth];
            f.in0 = null;   // do not keep tensors alive after the call
            f.in1 = null;
        }
    }
}
