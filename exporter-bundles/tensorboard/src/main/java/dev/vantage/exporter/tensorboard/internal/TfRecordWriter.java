package dev.vantage.exporter.tensorboard.internal;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * TFRecord framing, which TensorBoard's event files use: per record a little-endian 64-bit length, the masked
 * CRC32C of those 8 bytes, the data, and the masked CRC32C of the data. The mask is TensorFlow's:
 * {@code ((crc >>> 15) | (crc << 17)) + 0xa282ead8}.
 */
final class TfRecordWriter {

    private static final int MASK_DELTA = 0xa282ead8;

    private final OutputStream out;

    TfRecordWriter(OutputStream out) {
        this.out = out;
    }

    void write(byte[] data) throws IOException {
        byte[] length = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(data.length).array();
        out.write(length);
        out.write(intLe(maskedCrc(length)));
        out.write(data);
        out.write(intLe(maskedCrc(data)));
    }

    static int maskedCrc(byte[] bytes) {
        CRC32C crc = new CRC32C();
        crc.update(bytes);
        int c = (int) crc.getValue();
        return ((c >>> 15) | (c << 17)) + MASK_DELTA;
    }

    private static byte[] intLe(int v) {
        return ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(v).array();
    }
}
