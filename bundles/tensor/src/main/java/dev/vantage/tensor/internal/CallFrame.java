package dev.vantage.tensor.internal;

import java.util.Arrays;

import dev.vantage.profiler.spi.CallKind;
import dev.vantage.profiler.spi.Dispatch;
import dev.vantage.profiler.spi.DispatchHook;
import dev.vantage.profiler.spi.OpCall;
import dev.vantage.tensor.Tensor;

/**
 * The op being run, as dispatch hooks see it. One frame per thread and nesting level, reused from call to call,
 * so that calling hooks allocates nothing; input shapes are copied only when a hook asks for them. Used as
 * <pre>{@code
 * CallFrame f = CallFrame.open(op);          // null when no hook listens
 * if (f != null) f.tensor(a).scalar().begin();
 * try { ... } finally { CallFrame.close(f); }
 * }</pre>
 */
public final class CallFrame implements OpCall {

    private static final ThreadLocal<Stack> FRAMES = ThreadLocal.withInitial(Stack::new);
    private static final Object SCALAR = new Object();
    private static final Object INTS = new Object();
    private static final Object NONE = new Object();
    private static final Object LIST = new Object();

    private String name;
    private int nameId;
    private String dispatchKey = "";
    private int deviceIndex = -1;
    private long sequenceNumber = -1;
    private long forwardThreadId = -1;
    private Object[] args = new Object[8];
    private int argc;
    private DispatchHook[] hooks;
    private long[] handles = new long[2];

    /** Opens a frame for an op, or returns null when no hook listens. */
    public static CallFrame open(OpDef op) {
        DispatchHook[] hooks = Dispatch.hooks();
        if (hooks == null) {
            return null;
        }
        return FRAMES.get().push(op.name(), op.nameId(), hooks);
    }

    /** Opens a frame for a named autograd function, or returns null when no hook listens. */
    public static CallFrame open(String name, int nameId) {
        DispatchHook[] hooks = Dispatch.hooks();
        if (hooks == null) {
            return null;
        }
        return FRAMES.get().push(name, nameId, hooks);
    }

    /**
     * Opens a frame and calls the hooks' enter, or returns null when no hook listens. The inputs shown are the
     * first {@code tensors} of {@code a, b, c} (a null one is an absent optional input), then {@code scalars}
     * scalars and {@code ints} integer lists.
     */
    public static CallFrame begin(OpDef op, long seq, int tensors, Tensor a, Tensor b, Tensor c, int scalars,
            int ints) {
        DispatchHook[] hooks = Dispatch.hooks();
        if (hooks == null) {
            return null;
        }
        CallFrame f = FRAMES.get().push(op.name(), op.nameId(), hooks);
        if (tensors > 0) {
            f.tensor(a);
        }
        if (tensors > 1) {
            f.tensor(b);
        }
        if (tensors > 2) {
            f.tensor(c);
        }
        for (int i = 0; i < scalars; i++) {
            f.scalar();
        }
        for (int i = 0; i < ints; i++) {
            f.ints();
        }
        f.sequenceNumber = seq;
        f.begin();
        return f;
    }

    /** Ends a frame opened with {@link #open}; does nothing for null. */
    public static void close(CallFrame frame) {
        if (frame != null) {
            Dispatch.exit(frame.hooks, frame, frame.handles);
            FRAMES.get().pop();
        }
    }

    /** Adds a tensor input; the first one sets the frame's device. Null stands for an absent optional input. */
    public CallFrame tensor(Tensor t) {
        if (t != null && dispatchKey.isEmpty()) {
            dispatchKey = Dispatcher.keyName(t.device());
            deviceIndex = t.device().type().equals("cpu") ? -1 : t.device().index();
        }
        return add(t == null ? NONE : t);
    }

    /** Adds a list of tensors, shown as {@code TensorList}. */
    public CallFrame tensors(Tensor[] list) {
        if (list.length > 0 && dispatchKey.isEmpty()) {
            dispatchKey = Dispatcher.keyName(list[0].device());
            deviceIndex = list[0].device().type().equals("cpu") ? -1 : list[0].device().index();
        }
        return add(LIST);
    }

    /** Adds a scalar input. */
    public CallFrame scalar() {
        return add(SCALAR);
    }

    /** Adds an integer-list input, such as dims. */
    public CallFrame ints() {
        return add(INTS);
    }

    /** Sets the autograd sequence number and, for a backward function, the forward op's thread. */
    public CallFrame autograd(long sequenceNumber, long forwardThreadId) {
        this.sequenceNumber = sequenceNumber;
        this.forwardThreadId = forwardThreadId;
        return this;
    }

    /** Calls the hooks' enter; the inputs must all be added. */
    public void begin() {
        Dispatch.enter(hooks, this, handles);
    }

    private CallFrame add(Object arg) {
        if (argc == args.length) {
            args = Arrays.copyOf(args, argc * 2);
        }
        args[argc++] = arg;
        return this;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int nameId() {
        return nameId;
    }

    @Override
    public CallKind kind() {
        return CallKind.OP;
    }

    @Override
    public String dispatchKey() {
        return dispatchKey;
    }

    @Override
    public int deviceIndex() {
        return deviceIndex;
    }

    @Override
    public long sequenceNumber() {
        return sequenceNumber;
    }

    @Override
    public long forwardThreadId() {
        return forwardThreadId;
    }

    @Override
    public int inputCount() {
        return argc;
    }

    private Object arg(int index) {
        if (index < 0 || index >= argc) {
            throw new IndexOutOfBoundsException(name + " has " + argc + " inputs, not " + (index + 1));
        }
        return args[index];
    }

    @Override
    public int inputRank(int index) {
        return arg(index) instanceof Tensor t ? t.dim() : 0;
    }

    @Override
    public long inputDim(int index, int dim) {
        if (arg(index) instanceof Tensor t) {
            return t.size(dim);
        }
        throw new IndexOutOfBoundsException(name + " input " + index + " is not a tensor");
    }

    @Override
    public long[] inputShape(int index) {
        return arg(index) instanceof Tensor t ? t.shape() : new long[0];
    }

    @Override
    public String inputType(int index) {
        Object a = arg(index);
        if (a instanceof Tensor t) {
            return t.dtype().profileName();
        }
        return a == SCALAR ? "Scalar" : a == LIST ? "TensorList" : "";
    }

    /** The frames of one thread, one per nesting level. */
    private static final class Stack {
        private CallFrame[] frames = new CallFrame[16];
        private int depth;

        CallFrame push(String name, int nameId, DispatchHook[] hooks) {
            if (depth == frames.length) {
                frames = Arrays.copyOf(frames, depth * 2);
            }
            CallFrame f = frames[depth];
            if (f == null) {
                f = new CallFrame();
                frames[depth] = f;
            }
            depth++;
            f.name = name;
            f.nameId = nameId;
            f.hooks = hooks;
            if (f.handles.length < hooks.length) {
                f.handles = new long[hooks.length];
            }
            return f;
        }

        void pop() {
            CallFrame f = frames[--depth];
            Arrays.fill(f.args, 0, f.argc, null);   // do not keep tensors alive after the call
            f.argc = 0;
            f.dispatchKey = "";
            f.deviceIndex = -1;
            f.sequenceNumber = -1;
            f.forwardThreadId = -1;
            f.hooks = null;
        }
    }
}
