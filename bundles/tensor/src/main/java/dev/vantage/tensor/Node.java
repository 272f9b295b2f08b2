package dev.vantage.tensor;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import dev.vantage.profiler.dispatch.OpNames;

/**
 * A function of the backward graph: computes the gradients of an op's inputs from the gradient of its output.
 * {@code next[i]} is the node that receives input {@code i}'s gradient (null when that input needs none). A leaf's
 * {@code AccumulateGrad} node has no function; it adds the gradient to the leaf.
 *
 * <p>A node holds the tensors its op saved for it. It lets go of them once backward has run it (unless the graph is
 * retained), or when nothing can reach it any more: it counts its users, the tensor it computed and the nodes whose
 * {@code next} it is, as torch's nodes are reference counted.
 */
final class Node {

    private static final VarHandle USERS;

    static {
        try {
            USERS = MethodHandles.lookup().findVarHandle(Node.class, "users", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Computes input gradients from the output gradient; an entry may be null for an input needing none. */
    @FunctionalInterface
    interface Backward {
        Tensor[] apply(Tensor grad);
    }

    static final String ACCUMULATE = "torch::autograd::AccumulateGrad";

    final String name;
    final int nameId;
    final int evaluateNameId;
    final long sequenceNumber;
    final long threadId;
    final Node[] next;
    final Tensor leaf;
    Backward function;
    /** What the op saved for this node; null once let go. */
    private Autograd.Saved[] saved;
    @SuppressWarnings("unused")   // through USERS
    private volatile int users = 1;

    Node(String name, long sequenceNumber, Backward function, Node[] next, Autograd.Saved[] saved) {
        this.name = name;
        this.nameId = OpNames.intern(name);
        this.evaluateNameId = OpNames.intern(evaluateName(name));
        this.sequenceNumber = sequenceNumber;
        this.threadId = Thread.currentThread().getId();
        this.function = function;
        this.next = next;
        this.leaf = null;
        this.saved = saved;
    }

    /** Adds a user: another node whose {@code next} this is. Accumulators are not counted: they hold nothing. */
    void retain() {
        if (leaf == null) {
            USERS.getAndAdd(this, 1);
        }
    }

    /** Removes a user; returns true when it was the last one, so the caller lets go of what it saved and its next. */
    boolean unuse() {
        return leaf == null && (int) USERS.getAndAdd(this, -1) == 1;
    }

    /** Lets go of the function and every tensor saved for it; does nothing the second time. */
    void releaseSaved() {
        Autograd.Saved[] s;
        synchronized (this) {
            s = saved;
            saved = null;
            function = null;
        }
        if (s != null) {
            for (Autograd.Saved x : s) {
                x.release();
            }
        }
    }

    /** The {@code AccumulateGrad} node of a leaf. */
    Node(Tensor leaf) {
        this.name = ACCUMULATE;
        this.nameId = OpNames.intern(ACCUMULATE);
        this.evaluateNameId = OpNames.intern(evaluateName(ACCUMULATE));
        this.sequenceNumber = -1;
        this.threadId = Thread.currentThread().getId();
        this.next = new Node[0];
        this.leaf = leaf;
    }

    static String evaluateName(String name) {
        return "autograd::engine::evaluate_function: " + name;
    }

    String name() {
        return name;
    }
}
