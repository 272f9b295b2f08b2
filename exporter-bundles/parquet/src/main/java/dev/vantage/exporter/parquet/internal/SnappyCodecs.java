package dev.vantage.exporter.parquet.internal;

import java.io.IOException;
import java.nio.ByteBuffer;

import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import io.airlift.compress.snappy.SnappyCompressor;
import io.airlift.compress.snappy.SnappyDecompressor;

/**
 * Page compression without Hadoop's codec classes or a native library: Snappy from aircompressor (pure Java), and
 * no compression. parquet-java's own {@code CodecFactory} loads Hadoop's codecs even for uncompressed pages, which
 * is why the exporter passes this factory to the writer. Snappy because every Parquet reader has it and it is
 * cheap: trace tables compress mostly through dictionary encoding of names, not through the page codec.
 */
final class SnappyCodecs implements CompressionCodecFactory {

    @Override
    public BytesInputCompressor getCompressor(CompressionCodecName codec) {
        return switch (codec) {
            case UNCOMPRESSED -> new Compressor(codec, false);
            case SNAPPY -> new Compressor(codec, true);
            default -> throw new IllegalArgumentException("codec " + codec + " is not available; use SNAPPY");
        };
    }

    @Override
    public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
        return switch (codec) {
            case UNCOMPRESSED -> new Decompressor(false);
            case SNAPPY -> new Decompressor(true);
            default -> throw new IllegalArgumentException("codec " + codec + " is not available; use SNAPPY");
        };
    }

    @Override
    public void release() {
        // the codecs hold no native or pooled resources
    }

    private static final class Compressor implements BytesInputCompressor {
        private final CompressionCodecName codec;
        private final SnappyCompressor snappy;
        private byte[] buffer = new byte[0];

        Compressor(CompressionCodecName codec, boolean compress) {
            this.codec = codec;
            this.snappy = compress ? new SnappyCompressor() : null;
        }

        @Override
        public BytesInput compress(BytesInput bytes) throws IOException {
            if (snappy == null) {
                return bytes;
            }
            byte[] in = bytes.toByteArray();
            int max = snappy.maxCompressedLength(in.length);
            if (buffer.length < max) {
                buffer = new byte[max];
            }
            int length = snappy.compress(in, 0, in.length, buffer, 0, buffer.length);
            // the writer keeps the compressed page until the row group is flushed, so it gets its own copy
            return BytesInput.from(java.util.Arrays.copyOf(buffer, length));
        }

        @Override
        public CompressionCodecName getCodecName() {
            return codec;
        }

        @Override
        public void release() {
            buffer = new byte[0];
        }
    }

    private static final class Decompressor implements BytesInputDecompressor {
        private final SnappyDecompressor snappy;

        Decompressor(boolean compressed) {
            this.snappy = compressed ? new SnappyDecompressor() : null;
        }

        @Override
        public BytesInput decompress(BytesInput bytes, int uncompressedSize) throws IOException {
            if (snappy == null) {
                return bytes;
            }
            byte[] in = bytes.toByteArray();
            byte[] out = new byte[uncompressedSize];
            int length = snappy.decompress(in, 0, in.length, out, 0, out.length);
            if (length != uncompressedSize) {
                throw new IOException("Snappy page holds " + length + " bytes, its header says " + uncompressedSize);
            }
            return BytesInput.from(out);
        }

        @Override
        public void decompress(ByteBuffer input, int compressedSize, ByteBuffer output, int uncompressedSize)
                throws IOException {
            byte[] in = new byte[compressedSize];
            input.get(in);
            byte[] out = decompress(BytesInput.from(in), uncompressedSize).toByteArray();
            output.put(out);
        }

        @Override
        public void release() {
            // nothing held
        }
    }
}
