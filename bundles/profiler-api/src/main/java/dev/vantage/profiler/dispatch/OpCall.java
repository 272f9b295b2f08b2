package dev.vantage.profiler.dispatch;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The op being dispatched, as a {@link DispatchHook} sees it. Valid only during the hook call that receives it:
 * a runtime reuses one instance per thread and nesting level, so a hook must copy what it keeps. Input details are
 * computed only when asked for.
 */
@ProviderType
public interface OpCall {

    /**
     * Returns the state of the thread the call runs on, where a hook keeps its per-thread state in a slot of its
     * own instead of looking it up in a {@code ThreadLocal}.
     */
    DispatchThread thread();

    /** Returns the op or annotation name, such as {@code aten::mm}. */
    String name();

    /** Returns the id of {@link #name()} in {@link OpNames}. */
    int nameId();

    /** Returns what is being called. */
    CallKind kind();

    /** Returns the dispatch key the kernel was chosen for, such as {@code CPU}, or the empty string. */
    String dispatchKey();

    /** Returns the index of the device the op runs on, or -1 for the host or an annotation. */
    int deviceIndex();

    /** Returns the autograd sequence number linking forward and backward ops, or -1 when there is none. */
    long sequenceNumber();

    /**
     * For a backward op, returns the Java thread id of the thread that ran its forward op; otherwise -1.
     */
    long forwardThreadId();

    /** Returns how many inputs the op has. */
    int inputCount();

    /**
     * Returns the number of dimensions of an input: 0 for a scalar or a non-tensor input. Reading shapes through
     * this and {@link #inputDim} allocates nothing.
     *
     * @throws IndexOutOfBoundsException if {@code index} is not below {@link #inputCount()}
     */
    int inputRank(int index);

    /**
     * Returns one size of an input's shape.
     *
     * @throws IndexOutOfBoundsException if {@code index} or {@code dim} is out of range
     */
    long inputDim(int index, int dim);

    /**
     * Returns the shape of an input as a new array; an empty array for a scalar or a non-tensor input.
     *
     * @throws IndexOutOfBoundsException if {@code index} is not below {@link #inputCount()}
     */
    long[] inputShape(int index);

    /**
     * Returns the dtype name of an input ({@code float}, {@code long}, {@code bool}), {@code Scalar}, or the empty
     * string for other inputs.
     *
     * @throws IndexOutOfBoundsException if {@code index} is not below {@link #inputCount()}
     */
    String inputType(int index);

    /**
     * Returns the call's own arguments for the trace, such as a collective's {@code Collective name} on
     * {@code record_param_comms}; empty for dispatched ops, whose inputs are described by their shapes.
     */
    default java.util.Map<String, String> args() {
        return java.util.Map.of();
    }
}
