package dev.vantage.profiler.api;

import java.util.Map;

import dev.vantage.profiler.dispatch.CallKind;
import dev.vantage.profiler.dispatch.Dispatch;
import dev.vantage.profiler.dispatch.DispatchHook;
import dev.vantage.profiler.dispatch.DispatchThread;
import dev.vantage.profiler.dispatch.OpCall;
import dev.vantage.profiler.dispatch.OpNames;

/**
 * A named scope that appears in profiles as a {@code user_annotation}, like torch's {@code record_function}:
 * <pre>{@code
 * try (RecordFunction scope = RecordFunction.scope("forward")) {
 *     model.forward(x);
 * }
 * }</pre>
 * When no profile is recording, {@link #scope} returns a shared do-nothing scope and allocates nothing. Scopes nest
 * and may be opened on any thread; close a scope on the thread that opened it. A scope left by an exception is
 * recorded with its real end.
 */
public final class RecordFunction implements AutoCloseable, OpCall {

    private static final long[][] NO_SHAPES = new long[0][];
    private static final String[] NO_TYPES = new String[0];
    private static final RecordFunction NOOP = new RecordFunction("", -1, null, null, CallKind.USER_ANNOTATION,
            Map.of(), NO_SHAPES, NO_TYPES);

    private final String name;
    private final int nameId;
    private final DispatchThread thread;
    private DispatchHook[] hooks;
    private final long[] handles;
    private final CallKind kind;
    private final Map<String, String> args;
    private final long[][] inputShapes;
    private final String[] inputTypes;

    private RecordFunction(String name, int nameId, DispatchHook[] hooks, DispatchThread thread, CallKind kind,
            Map<String, String> args, long[][] inputShapes, String[] inputTypes) {
        this.name = name;
        this.nameId = nameId;
        this.thread = thread;
        this.hooks = hooks;
        this.handles = hooks == null ? null : new long[hooks.length];
        this.kind = kind;
        this.args = args;
        this.inputShapes = inputShapes;
        this.inputTypes = inputTypes;
    }

    /**
     * Opens a scope.
     *
     * @param name what the scope is called in the profile; not null or empty
     * @return the open scope; close it with try-with-resources
     * @throws IllegalArgumentException if the name is empty
     */
    public static RecordFunction scope(String name) {
        return open(name, CallKind.USER_ANNOTATION, Map.of(), NO_SHAPES, NO_TYPES);
    }

    /**
     * Opens a scope whose event carries arguments, as torch's {@code record_function(name, args)}: they appear in
     * the trace's {@code args} (a value that is a number is written as one). The map is read only while a profile
     * records; build it only then ({@link #recording()}) where building it costs.
     *
     * @throws IllegalArgumentException if the name is empty
     */
    public static RecordFunction scope(String name, Map<String, String> args) {
        return open(name, CallKind.USER_ANNOTATION, args, NO_SHAPES, NO_TYPES);
    }

    /**
     * Opens a scope, as {@link #scope(String, Map)}, whose inputs have these shapes and dtypes: when a profile
     * records shapes they are the annotation's {@code Input Dims} and {@code Input type}, as torch's process groups
     * record the tensors of a collective on its {@code nccl:all_reduce}/{@code gloo:all_reduce} scope, where the
     * TensorBoard plugin's communication table reads the sizes it shows.
     *
     * @param inputShapes one shape per input; not copied, do not change them while the scope is open
     * @param inputTypes one dtype name per input ({@code float}, {@code long int}, ...), as many as shapes
     * @throws IllegalArgumentException if the name is empty or the counts differ
     */
    public static RecordFunction scope(String name, Map<String, String> args, long[][] inputShapes,
            String[] inputTypes) {
        checkInputs(name, inputShapes, inputTypes);
        return open(name, CallKind.USER_ANNOTATION, args, inputShapes, inputTypes);
    }

    /**
     * Opens a scope recorded as a CPU op rather than an annotation, for work a runtime does itself without a
     * kernel, such as torch's {@code record_param_comms} around a collective: it is a {@code cpu_op} in the trace
     * with its arguments, and device work launched inside it links back to it ({@code External id}).
     *
     * @throws IllegalArgumentException if the name is empty
     */
    public static RecordFunction op(String name, Map<String, String> args) {
        return open(name, CallKind.OP, args, NO_SHAPES, NO_TYPES);
    }

    /**
     * Opens a scope recorded as a CPU op, as {@link #op(String, Map)}, whose inputs have these shapes and dtypes:
     * when a profile records shapes they are the op's {@code Input Dims} and {@code Input type}, as torch's
     * {@code record_param_comms} carries the tensors a collective sends.
     *
     * @param inputShapes one shape per input; not copied, do not change them while the scope is open
     * @param inputTypes one dtype name per input ({@code float}, {@code long int}, ...), as many as shapes
     * @throws IllegalArgumentException if the name is empty or the counts differ
     */
    public static RecordFunction op(String name, Map<String, String> args, long[][] inputShapes,
            String[] inputTypes) {
        checkInputs(name, inputShapes, inputTypes);
        return open(name, CallKind.OP, args, inputShapes, inputTypes);
    }

    private static void checkInputs(String name, long[][] inputShapes, String[] inputTypes) {
        if (inputShapes.length != inputTypes.length) {
            throw new IllegalArgumentException(name + ": " + inputShapes.length + " input shapes but "
                    + inputTypes.length + " input types");
        }
    }

    /** Returns whether a profile records now, so that a caller builds a scope's arguments only then. */
    public static boolean recording() {
        return Dispatch.hooks() != null;
    }

    private static RecordFunction open(String name, CallKind kind, Map<String, String> args, long[][] inputShapes,
            String[] inputTypes) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("record function name must not be null or empty");
        }
        DispatchHook[] hooks = Dispatch.hooks();
        if (hooks == null) {
            return NOOP;
        }
        RecordFunction scope = new RecordFunction(name, OpNames.intern(name), hooks, DispatchThread.current(), kind,
                Map.copyOf(args), inputShapes, inputTypes);
        Dispatch.enter(hooks, scope, scope.handles);
        return scope;
    }

    @Override
    public Map<String, String> args() {
        return args;
    }

    /** Closes the scope; closing it again does nothing. */
    @Override
    public void close() {
        DispatchHook[] h = hooks;
        if (h != null) {
            hooks = null;
            Dispatch.exit(h, this, handles);
        }
    }

    @Override
    public DispatchThread thread() {
        return thread;
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
        return kind;
    }

    @Override
    public String dispatchKey() {
        return "";
    }

    @Override
    public int deviceIndex() {
        return -1;
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
        return inputShapes.length;
    }

    @Override
    public int inputRank(int index) {
        return input(index).length;
    }

    @Override
    public long inputDim(int index, int dim) {
        return input(index)[dim];
    }

    @Override
    public long[] inputShape(int index) {
        return input(index).clone();
    }

    @Override
    public String inputType(int index) {
        input(index);
        return inputTypes[index];
    }

    private long[] input(int index) {
        if (index < 0 || index >= inputShapes.length) {
            throw new IndexOutOfBoundsException("this record function has " + inputShapes.length + " inputs; asked"
                    + " for " + index);
        }
        return inputShapes[index];
    }
}
