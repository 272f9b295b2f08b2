package dev.vantage.tensor.internal;

import java.util.Arrays;

import dev.vantage.profiler.dispatch.CallKind;
import dev.vantage.profiler.dispatch.Dispatch;
import dev.vantage.profiler.dispatch.DispatchHook;
import dev.vantage.profiler.dispatch.DispatchThread;
import dev.vantage.profiler.dispatch.OpCall;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.Tensor;

/**
 * The op being run, as dispatch hooks see it. One frame per thread and nesting level, reused from call to call,
 * so that calling hooks allocates nothing; input shapes are copied only when a hook asks for them, and the
 * dispatch key only when a hook asks for it. The frames of a thread live in a slot of its {@link DispatchThread},
 * so an op costs one lookup of its thread, shared with the hooks through {@link #thread()}. Used as
 * <pre>{@code
 * CallFrame f = CallFrame.open(op);          // null when no hook listens
 * if (f != null) f.tensor(a).scalar().begin();
 * try { ... } finally { CallFrame.close(f); }
 * }</pre>
 */
public final class CallFrame implements OpCall {

    /** The slot of every thread's {@link DispatchThread} that holds its frames. */
    private static final int FRAMES = DispatchThread.newSlot();
    private static final Object SCALAR = new Object();
    private static final Object INTS = new Object();
    private static final Object NONE = new Object();
    private static final Object LIST = new Object();

    private final Stack stack;
    /** The stack's thread, held here too so that a hook reaches it in one load from the frame. */
    private final DispatchThread thread;
    /** The frame one level deeper, made when first needed and reused from then on. */
    private CallFrame child;
    /** The frame one level up, null for the outermost; set once, when this frame is made. */
    private final CallFrame parent;
    private String name;
    private int nameId;
    /** The device of a tensor list input, which names the dispatch key when no single tensor comes first. */
    private Device device;
    private String dispatchKey;
    private long sequenceNumber = -1;
    private long forwardThreadId = -1;
    private Object[] args = new Object[8];
    private int argc;
    /** Scalars and integer lists that follow the {@code argc} inputs in {@link #args}, counted, not stored. */
    private int trailingScalars;
    private int trailingInts;
    private DispatchHook[] hooks;
    private long[] handles = new long[2];

    /** Opens a frame for an op, or returns null when no hook listens. */
    public static CallFrame open(OpDef op) {
        DispatchHook[] hooks = Dispatch.hooks();
        if (hooks == null) {
            return null;
        }
        return frames().push(op.name(), op.nameId(), hooks);
    }

    /** Opens a frame for a named autograd function, or returns null when no hook listens. */
    public static CallFrame open(String name, int nameId) {
        DispatchHook[] hooks = Dispatch.hooks();
        if (hooks == null) {
            return null;
        }
        return frames().push(name, nameId, hooks);
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
        CallFrame f = frames().push(op.name(), op.nameId(), hooks);
        // stored as they are, with no loop: the scalars and int lists after the tensors are only counted
        Object[] in = f.args;
        if (tensors > 0) {
            in[0] = a == null ? NONE : a;
        }
        if (tensors > 1) {
            in[1] = b == null ? NONE : b;
        }
        if (tensors > 2) {
            in[2] = c == null ? NONE : c;
        }
        f.argc = tensors;
        f.trailingScalars = scalars;
        f.trailingInts = ints;
        f.sequenceNumber = seq;
        Dispatch.enter(hooks, f, f.handles);
        return f;
    }

    /** The calling thread's frames: the one thread lookup of an op. */
    private static Stack frames() {
        DispatchThread thread = DispatchThread.current();
        Object frames = thread.get(FRAMES);
        if (frames == null) {
            frames = new Stack(thread);
            thread.set(FRAMES, frames);
        }
        return (Stack) frames;
    }

    private CallFrame(Stack stack, CallFrame parent) {
        this.stack = stack;
        this.thread = stack.thread;
        this.parent = parent;
    }

    /**
     * Returns the name id of the innermost op open on the calling thread, or -1 when none is (or no hook listens,
     * so no frame was opened). Not on the dispatch path: for what a memory profile names a block by.
     */
    public static int innermostNameId() {
        if (!(DispatchThread.current().get(FRAMES) instanceof Stack s)) {
            return -1;
        }
        CallFrame open = s.next.parent;
        return open == null ? -1 : open.nameId;
    }

    /** Ends a frame opened with {@link #open}; does nothing for null. */
    public static void close(CallFrame frame) {
        if (frame != null) {
            Dispatch.exit(frame.hooks, frame, frame.handles);
            frame.stack.pop(frame);
        }
    }

    /** Adds a tensor input; the first one names the frame's dispatch key. Null stands for an absent input. */
    public CallFrame tensor(Tensor t) {
        return add(t == null ? NONE : t);
    }

    /** Adds a list of tensors, shown as {@code TensorList}. */
    public CallFrame tensors(Tensor[] list) {
        if (list.length > 0 && device == null) {
            device = list[0].device();
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
    public DispatchThread thread() {
        return thread;
    }

    @Override
    public String dispatchKey() {
        if (dispatchKey == null) {
            // looked up only when a hook asks: the recorder never does, so a recorded op pays no map lookup
            Device d = firstDevice();
            dispatchKey = d == null ? "" : Dispatcher.keyName(d);
        }
        return dispatchKey;
    }

    @Override
    public int deviceIndex() {
        Device d = firstDevice();
        return d == null || d.type().equals("cpu") ? -1 : d.index();
    }

    /** The device of the first tensor input, or of a tensor list before it; null when the op has neither. */
    private Device firstDevice() {
        for (int i = 0; i < argc; i++) {
            if (args[i] instanceof Tensor t) {
                return t.device();
            }
            if (args[i] == LIST) {
                return device;
            }
        }
        return null;
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
        return argc + trailingScalars + trailingInts;
    }

    private Object arg(int index) {
        int count = inputCount();
        if (index < 0 || index >= count) {
            throw new IndexOutOfBoundsException(name + " has " + count + " inputs, not " + (index + 1));
        }
        return index < argc ? args[index] : index < argc + trailingScalars ? SCALAR : INTS;
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

    /**
     * The frames of one thread, one per nesting level, linked parent to child: a push takes the frame it is handed
     * in one load, where an array indexed by depth needs two.
     */
    private static final class Stack {
        private final DispatchThread thread;
        /** The frame the next push uses: the child of the innermost open frame, or the outermost frame. */
        private CallFrame next;

        Stack(DispatchThread thread) {
            this.thread = thread;
            this.next = new CallFrame(this, null);
        }

        CallFrame push(String name, int nameId, DispatchHook[] hooks) {
            CallFrame f = next;
            CallFrame child = f.child;
            if (child == null) {
                child = new CallFrame(this, f);
                f.child = child;
            }
            next = child;
            f.name = name;
            f.nameId = nameId;
            f.hooks = hooks;
            if (f.handles.length < hooks.length) {
                f.handles = new long[hooks.length];
            }
            return f;
        }

        /** Ends the innermost open frame, which frames are closed in the reverse order of their pushes. */
        void pop(CallFrame f) {
            Arrays.fill(f.args, 0, f.argc, null);   // do not keep tensors alive after the call
            f.argc = 0;
            f.trailingScalars = 0;
            f.trailingInts = 0;
            f.device = null;
            f.dispatchKey = null;
            f.sequenceNumber = -1;
            f.forwardThreadId = -1;
            f.hooks = null;
            next = f;
        }
    }
}
