package dev.vantage.device.onnxruntime.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * Small ONNX models written byte by byte for fast tests, with the field numbers of {@code onnx/onnx.proto}
 * (ModelProto: ir_version 1, graph 7, opset_import 8; GraphProto: node 1, name 2, initializer 5, input 11,
 * output 12; NodeProto: input 1, output 2, name 3, op_type 4, attribute 5; ValueInfoProto: name 1, type 2;
 * TypeProto: tensor_type 1; TypeProto.Tensor: elem_type 1, shape 2; TensorShapeProto: dim 1; Dimension:
 * dim_value 1, dim_param 2; TensorProto: dims 1, data_type 2, name 8, raw_data 9; OperatorSetIdProto: domain 1,
 * version 2; data types FLOAT 1, INT64 7).
 */
final class TinyOnnx {

    static final int FLOAT = 1;
    static final int INT64 = 7;

    private TinyOnnx() {
    }

    /**
     * {@code y = relu(x @ w1 + b1) @ w2}: input {@code x} float {@code [batch, 16]}, output {@code y} float
     * {@code [batch, 4]}; five nodes.
     */
    static byte[] mlp() {
        SplittableRandom r = new SplittableRandom(7);
        Proto g = new Proto();
        g.message(1, node("fc1", "MatMul", new String[] {"x", "w1"}, new String[] {"h"}));
        g.message(1, node("bias1", "Add", new String[] {"h", "b1"}, new String[] {"hb"}));
        g.message(1, node("act", "Relu", new String[] {"hb"}, new String[] {"a"}));
        g.message(1, node("fc2", "MatMul", new String[] {"a", "w2"}, new String[] {"z"}));
        g.message(1, node("out", "Tanh", new String[] {"z"}, new String[] {"y"}));
        g.string(2, "tiny-mlp");
        g.message(5, floats("w1", r, 16, 32));
        g.message(5, floats("b1", r, 32));
        g.message(5, floats("w2", r, 32, 4));
        g.message(11, value("x", FLOAT, "batch", 16));
        g.message(12, value("y", FLOAT, "batch", 4));
        return model(g);
    }

    /** The same MLP with a fixed batch of 2: {@code x} is {@code [2, 16]}. */
    static byte[] fixedMlp() {
        SplittableRandom r = new SplittableRandom(7);
        Proto g = new Proto();
        g.message(1, node("fc1", "MatMul", new String[] {"x", "w1"}, new String[] {"y"}));
        g.string(2, "tiny-fixed");
        g.message(5, floats("w1", r, 16, 4));
        g.message(11, value("x", FLOAT, 2L, 16L));
        g.message(12, value("y", FLOAT, 2L, 4L));
        return model(g);
    }

    /**
     * A text model as tokenizers feed them: {@code input_ids} and {@code attention_mask}, int64
     * {@code [batch_size, sequence_length]}; embeds the ids ({@code Gather} from a 2048 x 8 table), masks them and
     * sums over the sequence: output {@code pooled} float {@code [batch_size, 8]}.
     */
    static byte[] text() {
        SplittableRandom r = new SplittableRandom(11);
        Proto g = new Proto();
        g.message(1, node("embed", "Gather", new String[] {"table", "input_ids"}, new String[] {"e"}));
        g.message(1, node("mask_float", "Cast", new String[] {"attention_mask"}, new String[] {"m"},
                intAttribute("to", FLOAT)));
        g.message(1, node("mask_3d", "Unsqueeze", new String[] {"m", "axes"}, new String[] {"m3"}));
        g.message(1, node("masked", "Mul", new String[] {"e", "m3"}, new String[] {"em"}));
        g.message(1, node("pool", "ReduceSum", new String[] {"em", "seq_axis"}, new String[] {"pooled"},
                intAttribute("keepdims", 0)));
        g.string(2, "tiny-text");
        g.message(5, floats("table", r, 2048, 8));
        g.message(5, longs("axes", 2));
        g.message(5, longs("seq_axis", 1));
        g.message(11, value("input_ids", INT64, "batch_size", "sequence_length"));
        g.message(11, value("attention_mask", INT64, "batch_size", "sequence_length"));
        g.message(12, value("pooled", FLOAT, "batch_size", 8L));
        return model(g);
    }

    /** Writes a model to a file and returns the file. */
    static Path write(Path dir, String name, byte[] model) throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve(name);
        Files.write(file, model);
        return file;
    }

    private static byte[] model(Proto graph) {
        Proto m = new Proto();
        m.varint(1, 8);
        m.string(2, "vantage-tests");
        m.message(7, graph);
        Proto opset = new Proto();
        opset.string(1, "");
        opset.varint(2, 17);
        m.message(8, opset);
        return m.bytes();
    }

    private static Proto node(String name, String op, String[] inputs, String[] outputs, Proto... attributes) {
        Proto n = new Proto();
        for (String in : inputs) {
            n.string(1, in);
        }
        for (String out : outputs) {
            n.string(2, out);
        }
        n.string(3, name);
        n.string(4, op);
        for (Proto a : attributes) {
            n.message(5, a);
        }
        return n;
    }

    private static Proto intAttribute(String name, long value) {
        Proto a = new Proto();
        a.string(1, name);
        a.varint(3, value);
        a.varint(20, 2);   // AttributeType INT
        return a;
    }

    /** A value: its dims are longs (fixed) or strings (named, dynamic). */
    private static Proto value(String name, int elemType, Object... dims) {
        Proto shape = new Proto();
        for (Object d : dims) {
            Proto dim = new Proto();
            if (d instanceof String s) {
                dim.string(2, s);
            } else {
                dim.varint(1, ((Number) d).longValue());
            }
            shape.message(1, dim);
        }
        Proto tensor = new Proto();
        tensor.varint(1, elemType);
        tensor.message(2, shape);
        Proto type = new Proto();
        type.message(1, tensor);
        Proto v = new Proto();
        v.string(1, name);
        v.message(2, type);
        return v;
    }

    private static Proto floats(String name, SplittableRandom r, long... dims) {
        long n = 1;
        Proto t = new Proto();
        for (long d : dims) {
            t.varint(1, d);
            n *= d;
        }
        t.varint(2, FLOAT);
        t.string(8, name);
        ByteBuffer raw = ByteBuffer.allocate((int) n * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (long i = 0; i < n; i++) {
            raw.putFloat((float) (r.nextDouble() - 0.5));
        }
        t.bytes(9, raw.array());
        return t;
    }

    private static Proto longs(String name, long... values) {
        Proto t = new Proto();
        t.varint(1, values.length);
        t.varint(2, INT64);
        t.string(8, name);
        ByteBuffer raw = ByteBuffer.allocate(values.length * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (long v : values) {
            raw.putLong(v);
        }
        t.bytes(9, raw.array());
        return t;
    }

    /** A protobuf message being written: varints and length-delimited fields only. */
    private static final class Proto {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        void varint(int field, long value) {
            raw(field << 3);
            raw(value);
        }

        void string(int field, String value) {
            bytes(field, value.getBytes(StandardCharsets.UTF_8));
        }

        void bytes(int field, byte[] value) {
            raw((field << 3) | 2);
            raw(value.length);
            out.writeBytes(value);
        }

        void message(int field, Proto value) {
            bytes(field, value.bytes());
        }

        byte[] bytes() {
            return out.toByteArray();
        }

        private void raw(long v) {
            while ((v & ~0x7FL) != 0) {
                out.write((int) ((v & 0x7F) | 0x80));
                v >>>= 7;
            }
            out.write((int) v);
        }
    }
}
