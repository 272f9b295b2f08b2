package dev.vantage.tensor;

import dev.vantage.profiler.dispatch.OpNames;

/**
 * A function of the backward graph: computes the gradients of an op's inputs from the gradient of its output.
 * {@code next[i]} is the node that receives input {@code i}'s gradient (null when that input needs none). A leaf's
 * {@code AccumulateGrad} node has no function; it adds the gradient to the leaf.
 */
final class Node {

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

    Node(String name, long sequenceNumber, Backward function, Node[] next) {
        this.name = name;
        this.nameId = OpNames.intern(name);
        this.evaluateNameId = OpNames.intern(evaluateName(name));
        this.sequenceNumber = sequenceNumber;
        this.threadId = Thread.currentThread().getId();
        this.function = function;
        this.next = next;
        this.leaf = null;
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
