package dev.vantage.exporter.tensorboard.internal;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

import org.junit.Test;

/**
 * TFRecord's checksums against published values. The CRC-32C (Castagnoli) test vectors are those of RFC 3720
 * (iSCSI), Appendix B.4, which TensorFlow's own {@code crc32c_test.cc} checks too, and the catalogue's check value
 * for {@code "123456789"}; the mask is TensorFlow's ({@code tensorflow/core/lib/hash/crc32c.h}): rotate right by 15
 * bits and add {@code 0xa282ead8}, undone here to compare the CRC itself.
 */
public class TfRecordWriterTest {

    private static int unmask(int masked) {
        int rotated = masked - 0xa282ead8;
        return (rotated >>> 17) | (rotated << 15);
    }

    private static int crc(byte[] bytes) {
        return unmask(TfRecordWriter.maskedCrc(bytes));
    }

    @Test
    public void crcMatchesTheRfc3720Vectors() {
        byte[] zeros = new byte[32];
        byte[] ones = new byte[32];
        byte[] ascending = new byte[32];
        byte[] descending = new byte[32];
        for (int i = 0; i < 32; i++) {
            ones[i] = (byte) 0xff;
            ascending[i] = (byte) i;
            descending[i] = (byte) (31 - i);
        }
        assertEquals(0x8a9136aa, crc(zeros));
        assertEquals(0x62a8ab43, crc(ones));
        assertEquals(0x46dd794e, crc(ascending));
        assertEquals(0x113fdb5c, crc(descending));
    }

    @Test
    public void crcMatchesTheCheckValueOf123456789() {
        assertEquals(0xe3069283, crc("123456789".getBytes(StandardCharsets.US_ASCII)));
    }

    @Test
    public void aRecordIsLengthItsMaskedCrcDataAndItsMaskedCrc() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] data = new byte[32];
        new TfRecordWriter(out).write(data);
        ByteBuffer b = ByteBuffer.wrap(out.toByteArray()).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(8 + 4 + 32 + 4, b.remaining());
        byte[] length = new byte[8];
        b.get(length);
        assertEquals(32, ByteBuffer.wrap(length).order(ByteOrder.LITTLE_ENDIAN).getLong());
        assertEquals(TfRecordWriter.maskedCrc(length), b.getInt());
        byte[] read = new byte[32];
        b.get(read);
        assertArrayEquals(data, read);
        // the data's masked CRC, from RFC 3720's CRC of 32 zero bytes masked as TensorFlow masks it
        int crc = 0x8a9136aa;
        assertEquals(((crc >>> 15) | (crc << 17)) + 0xa282ead8, b.getInt());
    }
}
