package dev.vantage.trace.engine.read;

import java.util.Arrays;

import dev.vantage.trace.engine.store.Interner;

/**
 * The events of one ONNX Runtime profile file ({@code SessionOptions.enableProfiling}), as columns: no object per
 * event. Times are ONNX Runtime's, whole microseconds since the session's profiling start. Strings are ids into
 * {@link #strings}. A data transfer object: the ONNX Runtime device reads the columns directly to turn them into
 * device activities; {@link OrtProfileReader} fills it.
 */
public final class OrtProfile {

    /** A node's {@code <name>_kernel_time} event ({@code cat: Node}). */
    public static final byte NODE = 0;
    /** A session's {@code model_run} event: one per {@code OrtSession.run}. */
    public static final byte MODEL_RUN = 1;
    /** Any other event: session set-up, {@code SequentialExecutor::Execute}, node fences. */
    public static final byte OTHER = 2;

    /** Not given in the file. */
    public static final long ABSENT = Long.MIN_VALUE;

    /** The strings of the events: names (a node's without {@code _kernel_time}), op types, providers, shapes. */
    public final Interner strings = new Interner();
    /** Events kept (the first {@link #size} of every column). */
    public int size;
    /** Events in the file, of every kind. */
    public long total;
    /** The parts the file was read in, each on a thread of its own (1: one pass). */
    public int parts = 1;

    public byte[] kind;
    public long[] tid;
    public long[] tsMicros;
    public long[] durMicros;
    public int[] name;
    public int[] op;
    public int[] provider;
    /** A node's inputs' dims as torch writes {@code Input Dims} ({@code [[8, 128], [2]]}), or -1. */
    public int[] inputDims;
    /** A node's {@code input_type_shape} as ONNX Runtime writes it ({@code [{"float":[8,128]}]}), or -1. */
    public int[] inputShape;
    /** A node's {@code output_type_shape} as ONNX Runtime writes it ({@code [{"float":[8,128]}]}), or -1. */
    public int[] outputShape;
    public long[] nodeIndex;
    public long[] activationSize;
    public long[] parameterSize;
    public long[] outputSize;
    /** ONNX Runtime's per-node memory fields, {@link #ABSENT} when the build does not write them. */
    public long[] memInUse;
    public long[] memInUseDelta;
    public long[] memArenaHeld;
    public long[] memRequestedInUse;
    public long[] memInUsePeak;

    /** Columns with room for {@code capacity} events before they grow. */
    OrtProfile(int capacity) {
        int n = Math.max(16, capacity);
        kind = new byte[n];
        tid = new long[n];
        tsMicros = new long[n];
        durMicros = new long[n];
        name = new int[n];
        op = new int[n];
        provider = new int[n];
        inputDims = new int[n];
        inputShape = new int[n];
        outputShape = new int[n];
        nodeIndex = new long[n];
        activationSize = new long[n];
        parameterSize = new long[n];
        outputSize = new long[n];
        memInUse = new long[n];
        memInUseDelta = new long[n];
        memArenaHeld = new long[n];
        memRequestedInUse = new long[n];
        memInUsePeak = new long[n];
    }

    /** Makes room for one more event and returns its index, with every field unset. */
    int add() {
        if (size == kind.length) {
            int n = size * 2;
            kind = Arrays.copyOf(kind, n);
            tid = Arrays.copyOf(tid, n);
            tsMicros = Arrays.copyOf(tsMicros, n);
            durMicros = Arrays.copyOf(durMicros, n);
            name = Arrays.copyOf(name, n);
            op = Arrays.copyOf(op, n);
            provider = Arrays.copyOf(provider, n);
            inputDims = Arrays.copyOf(inputDims, n);
            inputShape = Arrays.copyOf(inputShape, n);
            outputShape = Arrays.copyOf(outputShape, n);
            nodeIndex = Arrays.copyOf(nodeIndex, n);
            activationSize = Arrays.copyOf(activationSize, n);
            parameterSize = Arrays.copyOf(parameterSize, n);
            outputSize = Arrays.copyOf(outputSize, n);
            memInUse = Arrays.copyOf(memInUse, n);
            memInUseDelta = Arrays.copyOf(memInUseDelta, n);
            memArenaHeld = Arrays.copyOf(memArenaHeld, n);
            memRequestedInUse = Arrays.copyOf(memRequestedInUse, n);
            memInUsePeak = Arrays.copyOf(memInUsePeak, n);
        }
        int i = size++;
        kind[i] = OTHER;
        tid[i] = -1;
        tsMicros[i] = 0;
        durMicros[i] = 0;
        name[i] = -1;
        op[i] = -1;
        provider[i] = -1;
        inputDims[i] = -1;
        inputShape[i] = -1;
        outputShape[i] = -1;
        nodeIndex[i] = -1;
        activationSize[i] = ABSENT;
        parameterSize[i] = ABSENT;
        outputSize[i] = ABSENT;
        memInUse[i] = ABSENT;
        memInUseDelta[i] = ABSENT;
        memArenaHeld[i] = ABSENT;
        memRequestedInUse[i] = ABSENT;
        memInUsePeak[i] = ABSENT;
        return i;
    }

    /**
     * Appends another part's events after this one's, its string ids turned into this one's, and returns this.
     */
    OrtProfile append(OrtProfile o) {
        int[] ids = new int[o.strings.size()];
        for (int k = 0; k < ids.length; k++) {
            ids[k] = strings.intern(o.strings.get(k));
        }
        for (int j = 0; j < o.size; j++) {
            int i = add();
            kind[i] = o.kind[j];
            tid[i] = o.tid[j];
            tsMicros[i] = o.tsMicros[j];
            durMicros[i] = o.durMicros[j];
            name[i] = id(ids, o.name[j]);
            op[i] = id(ids, o.op[j]);
            provider[i] = id(ids, o.provider[j]);
            inputDims[i] = id(ids, o.inputDims[j]);
            inputShape[i] = id(ids, o.inputShape[j]);
            outputShape[i] = id(ids, o.outputShape[j]);
            nodeIndex[i] = o.nodeIndex[j];
            activationSize[i] = o.activationSize[j];
            parameterSize[i] = o.parameterSize[j];
            outputSize[i] = o.outputSize[j];
            memInUse[i] = o.memInUse[j];
            memInUseDelta[i] = o.memInUseDelta[j];
            memArenaHeld[i] = o.memArenaHeld[j];
            memRequestedInUse[i] = o.memRequestedInUse[j];
            memInUsePeak[i] = o.memInUsePeak[j];
        }
        total += o.total;
        parts += o.parts;
        return this;
    }

    private static int id(int[] ids, int id) {
        return id < 0 ? id : ids[id];
    }

    /** Returns the text of a string id, or null for -1. */
    public String string(int id) {
        return id < 0 ? null : strings.get(id);
    }

    /** Returns the number of node events. */
    public int nodes() {
        int n = 0;
        for (int i = 0; i < size; i++) {
            n += kind[i] == NODE ? 1 : 0;
        }
        return n;
    }

    /**
     * Puts a node's memory as ONNX Runtime measured it into its arguments, under ONNX Runtime's names
     * ({@code activation_size}, {@code parameter_size}, {@code output_size}); a size the profile lacks is left out.
     */
    public void putSizes(java.util.Map<String, String> args, int row) {
        putSize(args, "activation_size", activationSize[row]);
        putSize(args, "parameter_size", parameterSize[row]);
        putSize(args, "output_size", outputSize[row]);
    }

    private static void putSize(java.util.Map<String, String> args, String key, long value) {
        if (value != ABSENT) {
            args.put(key, Long.toString(value));
        }
    }
}
