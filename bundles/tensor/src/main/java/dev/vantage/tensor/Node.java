package dev.vantage.tensor;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import dev.vantage.profiler.dispatch.OpNames;

/**
 * A function of the backward graph: one recorded call of an op, from which the op's
 * {@link Op#backward(Node, Tensor) backward} computes the gradients of the call's inputs. {@code next[i]} is the
 * node that receives input {@code i}'s gradient (null when that input needs none). A leaf's {@code AccumulateGrad}
 * node has no op; it adds the gradient to the leaf.
 *
 * <p>A node holds what the call left for its backward: the tensors the op saved (with their versions), the inputs'
 * shapes, the call's scalars and integer lists and the device it ran on. It lets go of the saved tensors once backward
 * has run it (unless the graph is retained), or when nothing can reach it any more: it counts its users, the tensor
 * it computed and the nodes whose {@code next} it is, as torch's nodes are reference counted.
 */
final class Node {

    private static final VarHandle USERS;
    private static final int ACCUMULATE_ID = OpNames.intern(Autograd.ACCUMULATE);
    private static final int ACCUMULATE_EVALUATE_ID = OpNames.intern(Autograd.evaluateName(Autograd.ACCUMULATE));

    static {
        try {
            USERS = MethodHandles.lookup().findVarHandle(Node.class, "users", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The op whose backward this node runs; null for a leaf's accumulator. */
    final Op op;
    final long sequenceNumber;
    final long threadId;
    final Node[] next;
    final Tensor leaf;
    private final int[][] sizes;
    private final Device device;
    private final double[] scalars;
    private final long[][] ints;
    /** What the op saved: its inputs' and outputs' tensors by position, null where it saved none; null once let go. */
    private Autograd.Saved[] inputs;
    private Autograd.Saved[] outputs;
    private boolean released;
    @SuppressWarnings("unused")   // through USERS
    private volatile int users = 1;

    Node(Op op, long sequenceNumber, long threadId, Node[] next, int[][] sizes, Device device, double[] scalars,
            long[][] ints, Autograd.Saved[] inputs, Autograd.Saved[] outputs) {
        this.op = op;
        this.sequenceNumber = sequenceNumber;
        this.threadId = threadId;
        this.next = next;
        this.leaf = null;
        this.sizes = sizes;
        this.device = device;
        this.scalars = scalars;
        this.ints = ints;
        this.inputs = inputs;
        this.outputs = outputs;
    }

    /** The {@code AccumulateGrad} node of a leaf. */
    Node(Tensor leaf) {
        this.op = null;
        this.sequenceNumber = -1;
        this.threadId = Thread.currentThread().getId();
        this.next = new Node[0];
        this.leaf = leaf;
        this.sizes = null;
        this.device = leaf.device();
        this.scalars = null;
        this.ints = null;
    }

    String name() {
        return op == null ? Autograd.ACCUMULATE : op.backwardName;
    }

    int nameId() {
        return op == null ? ACCUMULATE_ID : op.backwardNameId;
    }

    int evaluateNameId() {
        return op == null ? ACCUMULATE_EVALUATE_ID : op.evaluateNameId;
    }

    // ---------------------------------------------------------------- what a backward reads

    /** Returns true when input {@code i} of the call needs a gradient. */
    boolean needs(int i) {
        return i < next.length && next[i] != null;
    }

    /** Returns the shape input {@code i} had. */
    int[] size(int i) {
        return sizes[i];
    }

    /** Returns the number of the call's inputs. */
    int inputCount() {
        return sizes.length;
    }

    /** Returns the device the call ran on. */
    Device device() {
        return device;
    }

    double scalar(int i) {
        return scalars[i];
    }

    long[] ints(int i) {
        return ints[i];
    }

    /**
     * Returns input {@code i} as the op saved it.
     *
     * @throws IllegalStateException if it was freed (a second backward) or written in place since it was saved
     */
    Tensor input(int i) {
        return saved(inputs, i);
    }

    /** Returns output {@code k} as the op saved it; see {@link #input}. */
    Tensor output(int k) {
        return saved(outputs, k);
    }

    private Tensor saved(Autograd.Saved[] saved, int i) {
        if (released) {
            throw new IllegalStateException(name() + ": trying to backward through the graph a second time, or"
                    + " after the tensors it saved were freed; pass retainGraph = true to backward twice");
        }
        Autograd.Saved s = saved == null || i >= saved.length ? null : saved[i];
        if (s == null) {
            throw new IllegalStateException(name() + " reads tensor " + i + ", which " + op.name + " did not save");
        }
        return s.get(name());
    }

    // ---------------------------------------------------------------- lifetime

    /** Returns true once what the op saved was let go of, after which backward cannot run this node again. */
    boolean released() {
        return released;
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

    /** Lets go of every tensor saved for the backward; does nothing the second time. */
    void releaseSaved() {
        Autograd.Saved[] in;
        Autograd.Saved[] out;
        synchronized (this) {
            in = inputs;
            out = outputs;
            inputs = null;
            outputs = null;
            released = true;
        }
        release(in);
        release(out);
    }

    private static void release(Autograd.Saved[] saved) {
        if (saved != null) {
            for (Autograd.Saved x : saved) {
                if (x != null) {
                    x.release();
                }
            }
        }
    }
}
