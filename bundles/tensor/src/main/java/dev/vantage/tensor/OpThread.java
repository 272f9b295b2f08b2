package dev.vantage.tensor;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import dev.vantage.profiler.dispatch.CallKind;
import dev.vantage.profiler.dispatch.Dispatch;
import dev.vantage.profiler.dispatch.DispatchHook;
import dev.vantage.profiler.dispatch.DispatchThread;
import dev.vantage.profiler.dispatch.OpCall;
import dev.vantage.tensor.internal.Dispatcher;

/**
 * Everything the runtime keeps per thread, in one slot of the thread's {@link DispatchThread}: whether gradients are
 * recorded ({@link GradMode}), the autograd sequence counter, the backward pass running, the tensors the open
 * {@link TensorScope}s own, and the frames dispatch hooks see. An op that needs any of it looks its thread up once
 * ({@link #current()}) and hands the result to every step; an op that needs none of it (no input requires a
 * gradient, no hook listens, no scope is open, no memory is recorded) looks nothing up.
 *
 * <p>Concurrency: only the thread a state belongs to reads or writes it, so nothing here is synchronised. The
 * profiler's own per-thread state (its buffer, the memory category) is in other slots of the same
 * {@link DispatchThread}, reached from {@link #thread} without another lookup. The frames are the thread's own
 * too: one per nesting level, made once and reused by every op at that level.
 */
final class OpThread {

    private static final int SLOT = DispatchThread.newSlot();

    /** The thread's state in the dispatch channel, which hooks and the memory profile keep their slots in. */
    final DispatchThread thread;
    /** {@link GradMode#disabled()} scopes open on this thread; gradients are recorded while it is 0. */
    int gradOff;
    /** The next autograd sequence number. */
    long sequence;
    /** The number of the backward pass running on this thread, or -1 outside one. */
    long pass = -1;
    /** Backward passes begun on this thread, which numbers the next one. */
    long passes;
    /** Callbacks queued during the running backward pass, or null. */
    List<Runnable> callbacks;
    /** The innermost open {@link TensorScope}, or null. */
    TensorScope scope;
    /** The tensors the open scopes own, oldest first; each scope owns a tail of the list. */
    Tensor[] owned = new Tensor[64];
    int ownedCount;
    /** The frame the next op opens: the child of the innermost open frame, or the outermost frame. */
    Frame next;

    private OpThread(DispatchThread thread) {
        this.thread = thread;
        this.next = new Frame(this, null);
    }

    /** Returns the calling thread's state: the one lookup of an op that needs one. */
    static OpThread current() {
        DispatchThread thread = DispatchThread.current();
        Object state = thread.get(SLOT);
        return state != null ? (OpThread) state : create(thread);
    }

    private static OpThread create(DispatchThread thread) {
        OpThread state = new OpThread(thread);
        thread.set(SLOT, state);
        return state;
    }

    /** Returns true while gradients are recorded on this thread. */
    boolean gradEnabled() {
        return gradOff == 0;
    }

    /** A tensor made on this thread joins the innermost open scope, if any. */
    void adopt(Tensor t) {
        TensorScope s = scope;
        if (s != null) {
            t.scope = s;
            if (ownedCount == owned.length) {
                owned = Arrays.copyOf(owned, ownedCount * 2);
            }
            owned[ownedCount++] = t;
        }
    }

    /**
     * Opens this thread's next frame for a named call, for hooks to see once its inputs are added and
     * {@link Frame#begin()} runs. A push takes the frame the thread points at, in one load.
     */
    Frame push(String name, int nameId, DispatchHook[] hooks) {
        Frame f = next;
        Frame child = f.child;
        if (child == null) {
            child = new Frame(this, f);
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

    /** Returns the name id of the innermost op open with a frame, or -1 when none is. */
    int innermostNameId() {
        Frame open = next.parent;
        return open == null ? -1 : open.nameId();
    }

    /**
     * The op being run, as dispatch hooks see it. One frame per thread and nesting level, kept in the thread's state
     * and reused from call to call, so that calling hooks allocates nothing; input shapes are read only when a hook
     * asks for them, and the dispatch key only when a hook asks for it. Frames are opened only while a hook listens:
     * {@link Op#call} opens one for every op, and the autograd engine one for each function it evaluates.
     */
    static final class Frame implements OpCall {

        private static final Object SCALAR = new Object();
        private static final Object INTS = new Object();
        private static final Object NONE = new Object();
        private static final Object LIST = new Object();

        private final OpThread owner;
        /** The owner's thread, held here too so that a hook reaches it in one load from the frame. */
        private final DispatchThread thread;
        /** The frame one level deeper, made when first needed and reused from then on. */
        private Frame child;
        /** The frame one level up, null for the outermost; set once, when this frame is made. */
        final Frame parent;
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

        Frame(OpThread owner, Frame parent) {
            this.owner = owner;
            this.thread = owner.thread;
            this.parent = parent;
        }

        /**
         * Shows an op's inputs as the op declares them (its first tensors, or its tensor list, then the number of
         * scalars and integer lists) with its sequence number, and calls the hooks' enter. The tensors are stored as
         * they are, with no copy: the scalars and integer lists are only counted.
         */
        void begin(Op op, long seq, Tensor[] in) {
            Object[] a = args;
            int n = op.tensorsShown;
            if (op.listShown) {
                device = in.length > 0 ? in[0].device() : null;
                a[0] = LIST;
                n = 1;
            } else {
                int[] shown = op.shownInputs;
                for (int i = 0; i < n; i++) {
                    Tensor x = in[shown == null ? i : shown[i]];
                    a[i] = x == null ? NONE : x;
                }
            }
            argc = n;
            trailingScalars = op.scalarsShown;
            trailingInts = op.intsShown;
            sequenceNumber = seq;
            Dispatch.enter(hooks, this, handles);
        }

        /** Adds a tensor input to a frame {@link #begin()} starts: the autograd engine's functions show a gradient. */
        Frame tensor(Tensor t) {
            args[argc++] = t == null ? NONE : t;
            return this;
        }

        /** Sets the autograd sequence number and, for a backward function, the forward op's thread. */
        Frame autograd(long seq, long forwardThread) {
            this.sequenceNumber = seq;
            this.forwardThreadId = forwardThread;
            return this;
        }

        /** Calls the hooks' enter; the inputs must all be added. */
        void begin() {
            Dispatch.enter(hooks, this, handles);
        }

        /**
         * Calls the hooks' exit and ends this frame, the innermost open one: frames close in the reverse order of their
         * pushes.
         */
        void close() {
            Dispatch.exit(hooks, this, handles);
            Arrays.fill(args, 0, argc, null);   // do not keep tensors alive after the call
            argc = 0;
            trailingScalars = 0;
            trailingInts = 0;
            device = null;
            dispatchKey = null;
            sequenceNumber = -1;
            forwardThreadId = -1;
            hooks = null;
            owner.next = this;
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
        public Map<String, String> args() {
            return Map.of();
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
    }
}
