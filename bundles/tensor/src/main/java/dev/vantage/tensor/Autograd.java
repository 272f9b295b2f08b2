package dev.vantage.tensor;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.Consumer;

import dev.vantage.profiler.dispatch.Dispatch;
import dev.vantage.profiler.dispatch.DispatchHook;
import dev.vantage.profiler.memory.MemoryCategory;
import dev.vantage.profiler.memory.MemoryScope;
import dev.vantage.tensor.internal.AutogradHooks;
import dev.vantage.tensor.internal.MemoryTags;

/**
 * Tape-based reverse-mode autograd. Ops that take a tensor requiring a gradient, while {@link GradMode} is on,
 * record a {@link Node} on their output with a sequence number from a per-thread counter, as torch does; the
 * number is on the op's profile event and on its backward function's, which is how profiles link forward and
 * backward ({@code fwdbwd} flows). The op template ({@link Op}) records the node ({@link #record}) with what the op
 * saves; the counter and the backward pass running are the thread's {@link OpThread}.
 *
 * <p>The engine runs nodes in dependency order, higher sequence numbers first when several are ready, on the
 * calling thread with recording off. Each node runs inside the profile events
 * {@code autograd::engine::evaluate_function: XBackward0} and {@code XBackward0}, and its ops are dispatched like
 * any other, so backward work is attributed in profiles.
 */
final class Autograd {

    static final String ACCUMULATE = "torch::autograd::AccumulateGrad";

    /** Hands the hook mechanism to {@link AutogradHooks}; {@link Tensor}'s initialiser calls it once. */
    static void bindHooks() {
        AutogradHooks.bind(new AutogradHooks.Engine() {
            @Override
            @SuppressWarnings("unchecked")
            public void addPostAccumulateHook(Tensor leaf, Consumer<Tensor> hook) {
                synchronized (leaf) {
                    Consumer<Tensor>[] old = leaf.postAccumulateHooks;
                    Consumer<Tensor>[] hooks = old == null ? new Consumer[1] : Arrays.copyOf(old, old.length + 1);
                    hooks[hooks.length - 1] = hook;
                    leaf.postAccumulateHooks = hooks;
                }
            }

            @Override
            public void queueCallback(Runnable callback) {
                OpThread t = OpThread.current();
                if (t.pass < 0) {
                    throw new IllegalStateException("queueCallback: no backward pass runs on thread "
                            + Thread.currentThread().getName());
                }
                if (t.callbacks == null) {
                    t.callbacks = new ArrayList<>();
                }
                t.callbacks.add(callback);
            }

            @Override
            public long currentBackward() {
                return OpThread.current().pass;
            }
        });
    }

    private Autograd() {
    }

    /** Returns true when an op on {@code a} would record a node: it requires a gradient and gradients are on. */
    static boolean needs(Tensor a) {
        return a != null && a.requiresGrad && GradMode.isEnabled();
    }

    /**
     * Records the node of one call of {@code op}, whose inputs {@code in} made {@code out}, on output 0: the node
     * each input's gradient goes to, the inputs' shapes, and what the op saves. Called by the op template with the
     * thread's state it looked up.
     */
    static void record(Op op, OpThread t, long seq, Tensor[] in, Tensor[] out, double[] scalars, long[][] ints,
            Device device) {
        int saves = op.saves(in);
        Node[] next = new Node[in.length];
        int[][] sizes = new int[in.length][];
        Saved[] savedIn = null;
        for (int i = 0; i < in.length; i++) {
            Tensor x = in[i];
            if (x == null) {
                continue;
            }
            sizes[i] = x.sizes;
            if (x.requiresGrad) {
                next[i] = x.gradFn != null ? x.gradFn : accumulator(x);
                next[i].retain();
            }
            if ((saves & 1 << i) != 0) {
                if (savedIn == null) {
                    savedIn = new Saved[in.length];
                }
                savedIn[i] = new Saved(x);
            }
        }
        Saved[] savedOut = null;
        for (int k = 0; k < out.length; k++) {
            if ((saves & Op.OUT0 << k) != 0) {
                if (savedOut == null) {
                    savedOut = new Saved[out.length];
                }
                savedOut[k] = new Saved(out[k]);
            }
        }
        Device first = in.length > 0 && in[0] != null ? in[0].device() : device;
        out[0].gradFn = new Node(op, seq, t.thread.thread().getId(), next, sizes, first, scalars, ints, savedIn,
                savedOut);
        out[0].requiresGrad = true;
    }

    /**
     * A tensor that computed by a node was closed: the node loses a user, and when it was the last, lets go of what it
     * saved and of its own next nodes, down the graph.
     */
    static void release(Node node) {
        Deque<Node> todo = new ArrayDeque<>();
        todo.push(node);
        while (!todo.isEmpty()) {
            Node n = todo.pop();
            if (n.unuse()) {
                n.releaseSaved();
                for (Node x : n.next) {
                    if (x != null) {
                        todo.push(x);
                    }
                }
            }
        }
    }

    private static Node accumulator(Tensor leaf) {
        if (leaf.accumulator == null) {
            leaf.accumulator = new Node(leaf);
        }
        return leaf.accumulator;
    }

    static void setRequiresGrad(Tensor t, boolean value) {
        if (t.gradFn != null) {
            if (!value) {
                throw new IllegalArgumentException("requiresGrad(false) on a tensor computed by " + t.gradFn.name()
                        + "; use detach() to get one outside the graph");
            }
            return;
        }
        if (value && t.dtype() != DType.FLOAT32) {
            throw new IllegalArgumentException("only float tensors can require gradients, not "
                    + Op.describe(t));
        }
        t.requiresGrad = value;
    }

    /**
     * A tensor saved for the backward pass, with the storage version it had then. It holds the memory on its own
     * (another user of the storage), so the op or the scope that made the tensor may close it; the node that owns
     * this lets go of it once backward has used it.
     */
    static final class Saved {
        private final Tensor tensor;
        private final int version;

        Saved(Tensor tensor) {
            this.tensor = Tensor.alias(tensor);
            this.version = tensor.storage.version();
        }

        Tensor get(String node) {
            if (tensor.isClosed()) {
                throw new IllegalStateException(node + ": trying to backward through the graph a second time, or"
                        + " after the tensors it saved were freed; pass retainGraph = true to backward twice");
            }
            if (tensor.storage.version() != version) {
                throw new IllegalStateException(node + ": a tensor of shape " + Shapes.str(tensor)
                        + " needed for the gradient was modified by an in-place op after it was saved");
            }
            return tensor;
        }

        void release() {
            tensor.close();
        }
    }

    static void backward(Tensor root, Tensor gradient, boolean retainGraph) {
        root.requireOpen("backward");
        if (!root.requiresGrad) {
            throw new IllegalStateException("backward: the tensor of shape " + Shapes.str(root)
                    + " does not require a gradient and has no grad_fn");
        }
        if (gradient == null) {
            if (root.numel() != 1) {
                throw new IllegalStateException("backward: a gradient can be created implicitly only for a"
                        + " one-element output; got shape " + Shapes.str(root) + " from "
                        + (root.gradFn == null ? "a leaf" : root.gradFn.name()) + " on " + root.device()
                        + "; pass a gradient of that shape");
            }
            try (GradMode.Scope off = GradMode.disabled()) {
                // made for the backward pass: a memory profile counts it as temporary, not as an activation
                gradient = TensorScope.escape(Creation.full(root.device(), 1f, root.sizes));
            }
        } else if (!Arrays.equals(gradient.sizes, root.sizes) || !gradient.device().equals(root.device())) {
            throw new IllegalArgumentException("backward: the gradient " + Op.describe(gradient)
                    + " does not match the output " + Op.describe(root));
        } else {
            // the engine closes the gradients it passes on; the caller's stays the caller's
            gradient = Tensor.alias(gradient);
        }
        Node start = root.gradFn != null ? root.gradFn : accumulator(root);
        OpThread t = OpThread.current();
        if (t.pass >= 0) {
            // a backward inside a hook or callback of another: its callbacks join the outer pass's
            try (GradMode.Scope off = GradMode.disabled()) {
                run(t, start, gradient, retainGraph);
            }
            return;
        }
        t.pass = t.passes++;
        boolean done = false;
        try (GradMode.Scope off = GradMode.disabled()) {
            run(t, start, gradient, retainGraph);
            done = true;
        } finally {
            List<Runnable> callbacks = t.callbacks;
            t.callbacks = null;
            t.pass = -1;
            if (done && callbacks != null) {
                for (Runnable callback : callbacks) {
                    callback.run();
                }
            }
        }
    }

    /**
     * Runs the graph from {@code start}. The engine owns every gradient it passes between nodes and closes each once
     * the node that received it has run, so the backward pass frees as it goes; a node's own intermediates die with
     * its evaluation, and what it saved is let go of right after, unless the graph is retained.
     */
    private static void run(OpThread t, Node start, Tensor gradient, boolean retainGraph) {
        Map<Node, Tensor> buffers = new IdentityHashMap<>();
        try (MemoryScope detail = MemoryScope.enter(MemoryCategory.AUTOGRAD_DETAIL)) {
            runGraph(t, start, gradient, retainGraph, buffers);
        } finally {
            gradient.close();
            for (Tensor left : buffers.values()) {
                left.close();   // a node failed: what was waiting for the rest goes too
            }
        }
    }

    private static void runGraph(OpThread t, Node start, Tensor gradient, boolean retainGraph,
            Map<Node, Tensor> buffers) {
        Map<Node, int[]> dependencies = new IdentityHashMap<>();
        Deque<Node> todo = new ArrayDeque<>();
        dependencies.put(start, new int[1]);
        todo.push(start);
        while (!todo.isEmpty()) {
            for (Node n : todo.pop().next) {
                if (n == null) {
                    continue;
                }
                int[] count = dependencies.get(n);
                if (count == null) {
                    dependencies.put(n, new int[] {1});
                    todo.push(n);
                } else {
                    count[0]++;
                }
            }
        }
        buffers.put(start, Tensor.alias(gradient));
        // accumulators run as soon as they are ready, then higher sequence numbers first, as torch's engine does
        PriorityQueue<Node> ready = new PriorityQueue<>((x, y) -> Long.compare(priority(y), priority(x)));
        ready.add(start);
        while (!ready.isEmpty()) {
            Node node = ready.poll();
            Tensor grad = buffers.remove(node);
            Tensor[] inputGrads;
            try {
                inputGrads = evaluate(t, node, grad, retainGraph);
            } finally {
                grad.close();
            }
            for (int i = 0; i < node.next.length; i++) {
                Node n = node.next[i];
                Tensor g = i < inputGrads.length ? inputGrads[i] : null;
                if (n == null) {
                    if (g != null) {
                        g.close();
                    }
                    continue;
                }
                if (g != null) {
                    Tensor previous = buffers.get(n);
                    if (previous == null) {
                        buffers.put(n, g);
                    } else {
                        Tensor sum = TensorScope.escape(previous.add(g));
                        buffers.put(n, sum);
                        previous.close();
                        g.close();
                    }
                }
                if (--dependencies.get(n)[0] == 0) {
                    if (buffers.containsKey(n)) {
                        ready.add(n);
                    } else {
                        skip(n, dependencies, buffers, ready);
                    }
                }
            }
        }
    }

    private static long priority(Node n) {
        return n.leaf != null ? Long.MAX_VALUE : n.sequenceNumber;
    }

    /** A node that received no gradient at all passes none on; its successors may still get some elsewhere. */
    private static void skip(Node node, Map<Node, int[]> dependencies, Map<Node, Tensor> buffers,
            PriorityQueue<Node> ready) {
        for (Node n : node.next) {
            if (n != null && --dependencies.get(n)[0] == 0) {
                if (buffers.containsKey(n)) {
                    ready.add(n);
                } else {
                    skip(n, dependencies, buffers, ready);
                }
            }
        }
    }

    private static Tensor[] evaluate(OpThread t, Node node, Tensor grad, boolean retainGraph) {
        long fwdThread = node.sequenceNumber >= 0 ? node.threadId : -1;
        DispatchHook[] hooks = Dispatch.hooks();
        OpThread.Frame outer = null;
        OpThread.Frame inner = null;
        if (hooks != null) {
            outer = t.push(evaluateName(node.name()), node.evaluateNameId(), hooks);
            outer.autograd(node.sequenceNumber, fwdThread).begin();
        }
        try {
            if (hooks != null) {
                inner = t.push(node.name(), node.nameId(), hooks);
                inner.tensor(grad).autograd(node.sequenceNumber, fwdThread).begin();
            }
            if (node.leaf != null) {
                accumulate(node.leaf, grad);
                return new Tensor[0];
            }
            if (node.released()) {
                throw new IllegalStateException(node.name() + ": trying to backward through the graph a second"
                        + " time; it was freed after the first backward (pass retainGraph = true)");
            }
            Tensor[] grads;
            try (TensorScope scope = TensorScope.open()) {
                grads = node.op.backward(node, grad);
                for (int i = 0; i < grads.length; i++) {
                    if (grads[i] != null) {
                        // each gradient passed on is the engine's own, whatever the function returned (its
                        // input, one tensor twice, a view): the scope closes the function's tensors
                        grads[i] = Tensor.alias(grads[i]);
                    }
                }
            }
            if (!retainGraph) {
                node.releaseSaved();   // frees the tensors it saved, now that they were used
            }
            return grads;
        } finally {
            if (inner != null) {
                inner.close();
            }
            if (outer != null) {
                outer.close();
            }
        }
    }

    static String evaluateName(String name) {
        return "autograd::engine::evaluate_function: " + name;
    }

    /**
     * Adds a gradient to a leaf's; out of place, so a gradient shared by two leaves is never written twice. The leaf
     * owns its gradient (no scope closes it; zeroGrad does). A memory profile counts the leaf's gradient as
     * {@code GRADIENT}: a sum is allocated as one, and a gradient taken over as it is (allocated by a backward op,
     * as {@code AUTOGRAD_DETAIL}) is re-categorised.
     */
    private static void accumulate(Tensor leaf, Tensor grad) {
        if (!Arrays.equals(grad.sizes, leaf.sizes)) {
            throw new IllegalStateException("torch::autograd::AccumulateGrad: gradient of shape " + Shapes.str(grad)
                    + " for a leaf of shape " + Shapes.str(leaf));
        }
        if (leaf.grad == null) {
            leaf.grad = TensorScope.escape(grad.detach());
            MemoryTags.categorize(leaf.grad, MemoryCategory.GRADIENT);
        } else {
            Tensor old = leaf.grad;
            try (MemoryScope scope = MemoryScope.enter(MemoryCategory.GRADIENT)) {
                leaf.grad = TensorScope.escape(old.add(grad));
            }
            old.close();
        }
        Consumer<Tensor>[] hooks = leaf.postAccumulateHooks;
        if (hooks != null) {
            for (Consumer<Tensor> hook : hooks) {
                hook.accept(leaf);
            }
        }
    }
}
