package dev.vantage.device.onnxruntime.internal;

import java.nio.ByteBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.TensorInfo;

/**
 * The inputs of the {@code onnx} workload, planned from the model's own input metadata and the user's flags:
 * every input's shape (its fixed dimensions as the model says; dynamic ones from {@code --input NAME=DIMS}, else
 * the batch size for a batch dimension and the sequence length for a sequence dimension) and what it holds. Text
 * models get what a tokenizer gives: int64 token ids, attention masks of ones, token type ids of zeros, positions
 * counting up; every other input gets seeded random floats (or small integers, or true). A plan that cannot be
 * made (an input of a type the workload cannot fill, a dimension nobody gave, a shape the model does not take) is
 * refused with a message naming the input.
 */
final class InputPlan {

    /** Token ids are drawn from this range: inside the vocabulary of any text model. */
    static final int TOKEN_ID_FROM = 1000;
    static final int TOKEN_ID_TO = 2000;
    /** No input may hold more than this many bytes. */
    static final long MAX_INPUT_BYTES = 1L << 31;

    /** What an input holds. */
    enum Fill { TOKEN_IDS, ONES, ZEROS, POSITIONS, RANDOM }

    /** One input's plan. */
    record Input(String name, OnnxJavaType type, long[] shape, Fill fill) {

        /** {@code input_ids [8, 128] long}. */
        String describe() {
            return name + " " + Arrays.toString(shape) + " " + Twin.typeName(type);
        }
    }

    private final List<Input> inputs;

    private InputPlan(List<Input> inputs) {
        this.inputs = List.copyOf(inputs);
    }

    List<Input> inputs() {
        return inputs;
    }

    /**
     * Plans the inputs of a model.
     *
     * @param model the model's inputs, as {@code OrtSession.getInputInfo()} gives them
     * @param batch the batch size to give batch dimensions, 1 or more
     * @param sequence the sequence length to give sequence dimensions, 1 or more
     * @param given shapes the user gave by input name
     * @throws IllegalArgumentException if the plan cannot be made; the message names the input
     */
    static InputPlan of(Map<String, NodeInfo> model, int batch, int sequence, Map<String, long[]> given) {
        for (String name : given.keySet()) {
            if (!model.containsKey(name)) {
                throw new IllegalArgumentException("--input " + name + ": the model has no input '" + name
                        + "'; its inputs are " + String.join(", ", model.keySet()));
            }
        }
        List<Input> plan = new ArrayList<>();
        for (Map.Entry<String, NodeInfo> e : model.entrySet()) {
            String name = e.getKey();
            if (!(e.getValue().getInfo() instanceof TensorInfo info)) {
                throw new IllegalArgumentException("the model's input " + name + " is no tensor ("
                        + e.getValue().getInfo() + "); the onnx workload fills tensors only");
            }
            OnnxJavaType type = info.type;
            if (!supported(type)) {
                throw new IllegalArgumentException("the model's input " + name + " holds " + type
                        + "; the onnx workload fills float, double, int64, int32, int8, uint8 and bool inputs");
            }
            long[] declared = info.getShape();
            String[] dimNames = info.getDimensionNames();
            long[] shape = given.containsKey(name) ? checkGiven(name, declared, given.get(name), type)
                    : resolve(name, declared, dimNames, type, batch, sequence);
            checkSize(name, shape, type, given.containsKey(name));
            plan.add(new Input(name, type, shape, fill(name, type)));
        }
        return new InputPlan(plan);
    }

    private static boolean supported(OnnxJavaType type) {
        return switch (type) {
            case FLOAT, DOUBLE, INT64, INT32, INT8, UINT8, BOOL -> true;
            default -> false;
        };
    }

    private static long[] checkGiven(String name, long[] declared, long[] shape, OnnxJavaType type) {
        if (shape.length != declared.length) {
            throw new IllegalArgumentException("--input " + name + "=" + dims(shape) + ": the model's input " + name
                    + " has " + declared.length + " dimensions (" + declaredText(declared) + " "
                    + Twin.typeName(type) + "), not " + shape.length);
        }
        for (int d = 0; d < shape.length; d++) {
            if (declared[d] >= 0 && declared[d] != shape[d]) {
                throw new IllegalArgumentException("--input " + name + "=" + dims(shape) + ": the model's input "
                        + name + " is " + declaredText(declared) + "; dimension " + d + " must be " + declared[d]);
            }
        }
        return shape.clone();
    }

    private static long[] resolve(String name, long[] declared, String[] dimNames, OnnxJavaType type, int batch,
            int sequence) {
        long[] shape = new long[declared.length];
        boolean integer = type == OnnxJavaType.INT64 || type == OnnxJavaType.INT32;
        for (int d = 0; d < declared.length; d++) {
            if (declared[d] >= 0) {
                shape[d] = declared[d];
                continue;
            }
            String dimName = dimNames != null && d < dimNames.length && dimNames[d] != null
                    ? dimNames[d].toLowerCase(Locale.ROOT) : "";
            if (dimName.contains("batch") || dimName.equals("n")) {
                shape[d] = batch;
            } else if (dimName.contains("seq") || dimName.contains("len") || dimName.contains("token")) {
                shape[d] = sequence;
            } else if (d == 0) {
                shape[d] = batch;
            } else if (d == 1 && integer) {
                shape[d] = sequence;
            } else {
                throw new IllegalArgumentException("the model's input " + name + " is " + declaredText(declared)
                        + ": dimension " + d + (dimName.isEmpty() ? "" : " ('" + dimNames[d] + "')")
                        + " is dynamic and neither a batch nor a sequence; give its shape with --input " + name
                        + "=DIMS");
            }
        }
        return shape;
    }

    private static void checkSize(String name, long[] shape, OnnxJavaType type, boolean given) {
        long elements = 1;
        for (long d : shape) {
            if (d < 0 || (d > 0 && elements > Long.MAX_VALUE / d)) {
                elements = Long.MAX_VALUE;
                break;
            }
            elements *= d;
        }
        int size = switch (type) {
            case DOUBLE, INT64 -> 8;
            case FLOAT, INT32 -> 4;
            default -> 1;
        };
        if (elements > Integer.MAX_VALUE || elements > MAX_INPUT_BYTES / size) {
            throw new IllegalArgumentException((given ? "--input " + name + "=" + dims(shape) + ": " : "input "
                    + name + " " + Arrays.toString(shape) + ": ") + elements + " elements of " + Twin.typeName(type)
                    + " is more than one input can hold (" + (MAX_INPUT_BYTES >> 20) + " MiB)");
        }
    }

    private static Fill fill(String name, OnnxJavaType type) {
        if (type != OnnxJavaType.INT64 && type != OnnxJavaType.INT32) {
            return Fill.RANDOM;
        }
        String n = name.toLowerCase(Locale.ROOT);
        if (n.contains("mask")) {
            return Fill.ONES;
        }
        if (n.contains("type") || n.contains("segment")) {
            return Fill.ZEROS;
        }
        if (n.contains("position")) {
            return Fill.POSITIONS;
        }
        return Fill.TOKEN_IDS;
    }

    private static String dims(long[] shape) {
        StringBuilder sb = new StringBuilder();
        for (int d = 0; d < shape.length; d++) {
            sb.append(d == 0 ? "" : "x").append(shape[d]);
        }
        return sb.toString();
    }

    /** {@code [batch, 128]}-like text of a declared shape, -1 for dynamic dimensions shown as {@code ?}. */
    private static String declaredText(long[] declared) {
        StringBuilder sb = new StringBuilder("[");
        for (int d = 0; d < declared.length; d++) {
            sb.append(d == 0 ? "" : ", ").append(declared[d] < 0 ? "?" : Long.toString(declared[d]));
        }
        return sb.append(']').toString();
    }

    /**
     * Makes the input tensors, with the same values for the same seed.
     *
     * @throws OrtException if ONNX Runtime refuses a tensor
     */
    Map<String, OnnxTensor> create(OrtEnvironment env, long seed) throws OrtException {
        Map<String, OnnxTensor> tensors = new LinkedHashMap<>();
        SplittableRandom random = new SplittableRandom(seed);
        try {
            for (Input in : inputs) {
                tensors.put(in.name(), tensor(env, in, random));
            }
        } catch (OrtException | RuntimeException e) {
            tensors.values().forEach(OnnxTensor::close);
            throw e;
        }
        return tensors;
    }

    private static OnnxTensor tensor(OrtEnvironment env, Input in, SplittableRandom random) throws OrtException {
        long[] shape = in.shape();
        int n = 1;
        for (long d : shape) {
            n = Math.multiplyExact(n, (int) d);
        }
        long last = shape.length == 0 ? 1 : Math.max(1, shape[shape.length - 1]);
        switch (in.type()) {
            case INT64 -> {
                long[] v = new long[n];
                for (int i = 0; i < n; i++) {
                    v[i] = integer(in.fill(), i, last, random);
                }
                return OnnxTensor.createTensor(env, LongBuffer.wrap(v), shape);
            }
            case INT32 -> {
                int[] v = new int[n];
                for (int i = 0; i < n; i++) {
                    v[i] = (int) integer(in.fill(), i, last, random);
                }
                return OnnxTensor.createTensor(env, IntBuffer.wrap(v), shape);
            }
            case FLOAT -> {
                float[] v = new float[n];
                for (int i = 0; i < n; i++) {
                    v[i] = (float) (random.nextDouble() * 2 - 1);
                }
                return OnnxTensor.createTensor(env, FloatBuffer.wrap(v), shape);
            }
            case DOUBLE -> {
                double[] v = new double[n];
                for (int i = 0; i < n; i++) {
                    v[i] = random.nextDouble() * 2 - 1;
                }
                return OnnxTensor.createTensor(env, DoubleBuffer.wrap(v), shape);
            }
            case BOOL -> {
                byte[] v = new byte[n];
                Arrays.fill(v, (byte) 1);
                return OnnxTensor.createTensor(env, ByteBuffer.wrap(v), shape, OnnxJavaType.BOOL);
            }
            default -> {
                byte[] v = new byte[n];
                for (int i = 0; i < n; i++) {
                    v[i] = (byte) random.nextInt(128);
                }
                return OnnxTensor.createTensor(env, ByteBuffer.wrap(v), shape, in.type());
            }
        }
    }

    private static long integer(Fill fill, int i, long last, SplittableRandom random) {
        return switch (fill) {
            case ONES -> 1;
            case ZEROS -> 0;
            case POSITIONS -> i % last;
            default -> random.nextInt(TOKEN_ID_FROM, TOKEN_ID_TO);
        };
    }
}
