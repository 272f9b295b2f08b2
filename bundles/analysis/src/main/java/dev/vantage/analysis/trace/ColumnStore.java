package dev.vantage.analysis.trace;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Where the per-event columns of a trace live once they are big: memory-mapped chunks of one temporary file, so
 * that reading a trace needs a heap of the same size whatever the trace's (the operating system keeps the pages in
 * its cache, or writes them out under pressure). Columns keep their first {@link #HEAD} entries on the heap, so a
 * small trace never creates the file. The file's name is deleted as soon as it is open, so that nothing is left in
 * the temporary directory whatever ends the process (a {@code kill -9} included): the open channel and the mappings
 * keep its pages until {@link #close()} and the buffers go. Where an open file cannot be deleted (Windows), it is
 * deleted by {@link #close()}, or at exit. Not thread-safe: one reader per store.
 */
final class ColumnStore implements Closeable {

    /** Entries a column keeps on the heap before it maps chunks. */
    static final int HEAD = 1 << 13;
    /** Entries per mapped chunk (a power of two). */
    static final int CHUNK_SHIFT = 18;
    static final int CHUNK = 1 << CHUNK_SHIFT;
    static final int CHUNK_MASK = CHUNK - 1;

    private FileChannel channel;
    private Path file;
    private long end;

    /** Maps a new chunk of {@code bytes} bytes, zeroed. */
    ByteBuffer map(long bytes) {
        try {
            if (channel == null) {
                file = Files.createTempFile("vantage-columns-", ".bin");
                channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
                try {
                    Files.delete(file);
                    file = null;
                } catch (IOException open) {
                    file.toFile().deleteOnExit();
                }
            }
            ByteBuffer b = channel.map(FileChannel.MapMode.READ_WRITE, end, bytes);
            end += bytes;
            return b;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot map columns in the temporary directory: " + e.getMessage(), e);
        }
    }

    /** Returns the bytes mapped so far. */
    long mappedBytes() {
        return end;
    }

    @Override
    public void close() {
        try {
            if (channel != null) {
                channel.close();
                if (file != null) {
                    Files.deleteIfExists(file);
                }
            }
        } catch (IOException e) {
            // a temporary file left behind is deleted at exit
        } finally {
            channel = null;
        }
    }
}
