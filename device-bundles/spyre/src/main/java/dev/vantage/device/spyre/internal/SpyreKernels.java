package dev.vantage.device.spyre.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

import dev.vantage.device.spyre.driver.SpyreKernel;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.KernelCall;

/**
 * Names the kernels the bundle's compiler produces for each op, after torch-spyre's scheme:
 * {@code spyre_kernel_v1_<op summary>_<key>}, where the summary is the aten op's name (the kernel is one op, not
 * a fused group) and the key is the first 80 bits of the SHA-256 of the kernel's specification, written as 16
 * characters of lower-case base32. The specification is the op and the dtype and shape of every input and
 * output, so a kernel's name is the same for every call of the same op on the same shapes, in every run.
 */
final class SpyreKernels {

    static final String PREFIX = "spyre_kernel_v1_";
    private static final char[] BASE32 = "abcdefghijklmnopqrstuvwxyz234567".toCharArray();
    private static final int KEY_BYTES = 10;

    private SpyreKernels() {
    }

    /** Returns the kernel that computes an op for a call's dtypes and shapes. */
    static SpyreKernel kernel(String op, KernelCall call) {
        String key = key(spec(op, call));
        String summary = summary(op);
        int room = SpyreKernel.MAX_NAME_BYTES - PREFIX.length() - 1 - key.length();
        if (summary.length() > room) {
            summary = summary.substring(0, room);
        }
        return new SpyreKernel(PREFIX + summary + "_" + key, op, key);
    }

    /** Returns the op's name without its namespace and without leading or trailing underscores. */
    static String summary(String op) {
        String s = op.substring(op.indexOf(':') < 0 ? 0 : op.lastIndexOf(':') + 1);
        int from = 0;
        int to = s.length();
        while (from < to && s.charAt(from) == '_') {
            from++;
        }
        while (to > from && s.charAt(to - 1) == '_') {
            to--;
        }
        return from == to ? "op" : s.substring(from, to);
    }

    /** Returns the specification the key is computed over: the op, and each input's and output's dtype and shape. */
    static String spec(String op, KernelCall call) {
        StringBuilder s = new StringBuilder("v1|").append(op).append("|in");
        for (int i = 0; i < call.inputCount(); i++) {
            describe(s, call.input(i));
        }
        s.append("|out");
        for (int i = 0; i < call.outputCount(); i++) {
            describe(s, call.output(i));
        }
        return s.toString();
    }

    private static void describe(StringBuilder s, Tensor t) {
        s.append(';');
        if (t == null) {
            s.append("none");
        } else {
            s.append(t.dtype().profileName()).append(Arrays.toString(t.shape()));
        }
    }

    /** Returns the first 80 bits of the SHA-256 of a text, in base32. */
    static String key(String spec) {
        byte[] digest;
        try {
            digest = MessageDigest.getInstance("SHA-256").digest(spec.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no SHA-256, which every JVM must have", e);
        }
        return base32(Arrays.copyOf(digest, KEY_BYTES));
    }

    /** Writes bytes as lower-case RFC 4648 base32 without padding; 10 bytes make 16 characters. */
    static String base32(byte[] bytes) {
        StringBuilder s = new StringBuilder((bytes.length * 8 + 4) / 5);
        int buffer = 0;
        int bits = 0;
        for (byte b : bytes) {
            buffer = (buffer << 8) | (b & 0xff);
            bits += 8;
            while (bits >= 5) {
                s.append(BASE32[(buffer >>> (bits - 5)) & 31]);
                bits -= 5;
            }
        }
        if (bits > 0) {
            s.append(BASE32[(buffer << (5 - bits)) & 31]);
        }
        return s.toString();
    }
}
