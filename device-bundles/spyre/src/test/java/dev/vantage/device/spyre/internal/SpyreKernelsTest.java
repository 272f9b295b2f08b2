package dev.vantage.device.spyre.internal;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;

import org.junit.Test;

import dev.vantage.device.spyre.driver.SpyreKernel;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.KernelCall;
import dev.vantage.tensor.spi.KernelOps;

/** Kernel names follow torch-spyre's scheme and are stable for the same op and shapes. */
public class SpyreKernelsTest {

    private static Tensor floats(long... shape) {
        long n = 1;
        for (long s : shape) {
            n *= s;
        }
        float[] v = new float[(int) n];
        Arrays.fill(v, (float) Math.random());
        return Tensor.of(v, shape);
    }

    private static KernelCall mm(long m, long k, long n) {
        return new KernelCall(KernelOps.MM, new Tensor[] {floats(m, k), floats(k, n)}, new Tensor[] {floats(m, n)},
                null, null);
    }

    @Test
    public void namesAreTheSchemePrefixTheOpAndA16CharacterBase32Key() {
        SpyreKernel k = SpyreKernels.kernel(KernelOps.MM, mm(2, 3, 4));
        assertTrue(k.name(), k.name().matches("spyre_kernel_v1_mm_[a-z2-7]{16}"));
        assertTrue(k.name().endsWith("_" + k.provenanceKey()));
        assertEquals(KernelOps.MM, k.op());
    }

    @Test
    public void theSameOpOnTheSameShapesHasTheSameNameWhateverTheValues() {
        assertEquals(SpyreKernels.kernel(KernelOps.MM, mm(2, 3, 4)), SpyreKernels.kernel(KernelOps.MM, mm(2, 3, 4)));
    }

    @Test
    public void anotherShapeDtypeOrOpHasAnotherKey() {
        String key = SpyreKernels.kernel(KernelOps.MM, mm(2, 3, 4)).provenanceKey();
        assertNotEquals(key, SpyreKernels.kernel(KernelOps.MM, mm(2, 3, 5)).provenanceKey());
        assertNotEquals(key, SpyreKernels.kernel(KernelOps.ADD, mm(2, 3, 4)).provenanceKey());
        Tensor a = floats(4);
        KernelCall floatsOut = new KernelCall(KernelOps.ARGMAX, new Tensor[] {a}, new Tensor[] {floats(1)}, null, null);
        KernelCall longsOut = new KernelCall(KernelOps.ARGMAX, new Tensor[] {a},
                new Tensor[] {Tensor.ofLongs(new long[1], 1)}, null, null);
        assertNotEquals(SpyreKernels.kernel(KernelOps.ARGMAX, floatsOut).provenanceKey(),
                SpyreKernels.kernel(KernelOps.ARGMAX, longsOut).provenanceKey());
    }

    @Test
    public void theKeyIsTheFirst80BitsOfTheSha256OfTheSpecification() throws Exception {
        KernelCall call = mm(2, 3, 4);
        String spec = SpyreKernels.spec(KernelOps.MM, call);
        assertTrue(spec, spec.contains(KernelOps.MM) && spec.contains("[2, 3]") && spec.contains("[3, 4]")
                && spec.contains("[2, 4]"));
        byte[] digest = MessageDigest.getInstance("SHA-256").digest(spec.getBytes(StandardCharsets.UTF_8));
        assertArrayEquals(Arrays.copyOf(digest, 10), decodeBase32(SpyreKernels.kernel(KernelOps.MM, call)
                .provenanceKey()));
    }

    @Test
    public void base32IsRfc4648InLowerCase() {
        // RFC 4648 section 10 test vectors, without padding
        assertEquals("mzxw6", SpyreKernels.base32("foo".getBytes(StandardCharsets.US_ASCII)));
        assertEquals("mzxw6ytboi", SpyreKernels.base32("foobar".getBytes(StandardCharsets.US_ASCII)));
        assertEquals("my", SpyreKernels.base32("f".getBytes(StandardCharsets.US_ASCII)));
    }

    @Test
    public void summariesDropTheNamespaceAndEdgeUnderscores() {
        assertEquals("softmax", SpyreKernels.summary(KernelOps.SOFTMAX));
        assertEquals("index_add", SpyreKernels.summary(KernelOps.INDEX_ADD_));
        assertEquals("native_layer_norm_backward", SpyreKernels.summary(KernelOps.NATIVE_LAYER_NORM_BACKWARD));
    }

    @Test
    public void everyOpsNameFitsTheRecordField() {
        for (String op : KernelOps.ALL) {
            SpyreKernel k = SpyreKernels.kernel(op, mm(1, 1, 1));
            assertTrue(k.name(), k.name().length() <= SpyreKernel.MAX_NAME_BYTES);
            assertTrue(k.name(), k.name().startsWith("spyre_kernel_v1_" + SpyreKernels.summary(op) + "_"));
        }
    }

    private static byte[] decodeBase32(String text) {
        String alphabet = "abcdefghijklmnopqrstuvwxyz234567";
        byte[] out = new byte[text.length() * 5 / 8];
        int buffer = 0;
        int bits = 0;
        int n = 0;
        for (char c : text.toCharArray()) {
            int v = alphabet.indexOf(c);
            assertTrue("not base32: " + c, v >= 0);
            buffer = (buffer << 5) | v;
            bits += 5;
            if (bits >= 8) {
                out[n++] = (byte) (buffer >>> (bits - 8));
                bits -= 8;
            }
        }
        return out;
    }
}
