package dev.vantage.device.onnxruntime.internal;

import java.util.Arrays;

/**
 * The events of one ONNX Runtime profile file, as columns: no object per event. Times are ONNX Runtime's, whole
 * microseconds since the session's profiling start. Strings are ids into {@link #strings}.
 */
final class OrtEvents {

    /** A node's {@code <name>_kernel_time} event ({@code cat: Node}). */
    static final byte NODE = 0;
    /** A session's {@code model_run} event: one per {@code OrtSession.run}. */
    static final byte MODEL_RUN = 1;
    /** Any other event: session set-up, {@code SequentialExecutor::Execute}, node fences. */
    static final byte OTHER = 2;

    /** Not given in the file. */
    static final long ABSENT = Long.MIN_VALUE;

    final Strings strings = new Strings();
    int size;
    /** Events in the file, of every kind. */
    long total;

    byte[] kind;
    long[] tid;
    long[] tsMicros;
    long[] durMicros;
    int[] name;
    int[] op;
    int[] provider;
    int[] inputShape;
    int[] outputShape;
    long[] nodeIndex;
    long[] activationSize;
    long[] parameterSize;
    long[] outputSize;
    /** ONNX Runtime's per-node memory fields, {@link #ABSENT} when the build does not write them. */
    long[] memInUse;
    long[] memInUseDelta;
    long[] memArenaHeld;
    long[] memRequestedInUse;
    long[] memInUsePeak;

    OrtEvents() {
        this(1024);
    }

    /** Columns with room for {@code capacity} events before they grow. */
    OrtEvents(int capacity) {
        int n = Math.max(16, capacity);
        kind = new byte[n];
        tid = new long[n];
        tsMicros = new long[n];
        durMicros = new long[n];
        name = new int[n];
        op = new int[n];
        provider = new int[n];
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

    /** Appends another reader's events after these, with their strings interned here. */
    void append(OrtEvents other) {
        int[] ids = new int[other.strings.size()];
        for (int id = 0; id < ids.length; id++) {
            ids[id] = strings.intern(other.strings, id);
        }
        for (int j = 0; j < other.size; j++) {
            int i = add();
            kind[i] = other.kind[j];
            tid[i] = other.tid[j];
            tsMicros[i] = other.tsMicros[j];
            durMicros[i] = other.durMicros[j];
            name[i] = remap(ids, other.name[j]);
            op[i] = remap(ids, other.op[j]);
            provider[i] = remap(ids, other.provider[j]);
            inputShape[i] = remap(ids, other.inputShape[j]);
            outputShape[i] = remap(ids, other.outputShape[j]);
            nodeIndex[i] = other.nodeIndex[j];
            activationSize[i] = other.activationSize[j];
            parameterSize[i] = other.parameterSize[j];
            outputSize[i] = other.outputSize[j];
            memInUse[i] = other.memInUse[j];
            memInUseDelta[i] = other.memInUseDelta[j];
            memArenaHeld[i] = other.memArenaHeld[j];
            memRequestedInUse[i] = other.memRequestedInUse[j];
            memInUsePeak[i] = other.memInUsePeak[j];
        }
        total += other.total;
    }

    private static int remap(int[] ids, int id) {
        return id < 0 ? id : ids[id];
    }

    /** Forgets the last event added (one the reader decided not to keep). */
    void dropLast() {
        size--;
    }

    /** Returns the number of node events. */
    int nodes() {
        int n = 0;
        for (int i = 0; i < size; i++) {
            n += kind[i] == NODE ? 1 : 0;
        }
        return n;
    }
}
