package dev.vantage.perfetto.format;

import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/**
 * The content of a gzip stream, which ends where the compressed bytes are cut short or corrupt, as a plain file's
 * content ends where a killed writer cut it: a trace reader keeps every event before the cut. Without it,
 * {@link GZIPInputStream} throws at the cut, and a buffered reader above it loses the bytes of its last read. The
 * {@code .pftrace} reader and the trace engine's JSON reader read gzip files through it.
 */
public final class CutGzipInputStream extends FilterInputStream {

    /**
     * Reads the gzip header of {@code compressed}, whose content this stream then gives.
     *
     * @param compressed the gzip bytes, from their first
     * @param bufferSize the inflater's input buffer, in bytes
     * @throws HeaderException if the header is not gzip's, names a method or flags it cannot follow, or is cut
     * @throws IOException if {@code compressed} cannot be read
     */
    public CutGzipInputStream(InputStream compressed, int bufferSize) throws IOException {
        super(inflater(compressed, bufferSize));
    }

    private static GZIPInputStream inflater(InputStream compressed, int bufferSize) throws IOException {
        try {
            return new GZIPInputStream(compressed, bufferSize);
        } catch (ZipException | EOFException e) {
            throw new HeaderException(e);
        }
    }

    /**
     * A gzip header that does not read, said in one line for a reader's refusal: "it starts as gzip but its gzip
     * header does not read (...)", with the JDK's reason.
     */
    public static final class HeaderException extends IOException {

        private static final long serialVersionUID = 1L;

        HeaderException(IOException cause) {
            super("it starts as gzip but its gzip header does not read ("
                    + (cause.getMessage() == null ? "it ends inside the header" : cause.getMessage()) + ")", cause);
        }
    }

    @Override
    public int read() throws IOException {
        try {
            return super.read();
        } catch (EOFException | ZipException e) {
            return -1;
        }
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        try {
            return super.read(b, off, len);
        } catch (EOFException | ZipException e) {
            return -1;
        }
    }

    @Override
    public long skip(long n) throws IOException {
        try {
            return super.skip(n);
        } catch (EOFException | ZipException e) {
            return 0;
        }
    }

    @Override
    public int available() throws IOException {
        try {
            return super.available();
        } catch (EOFException | ZipException e) {
            return 0;
        }
    }
}
