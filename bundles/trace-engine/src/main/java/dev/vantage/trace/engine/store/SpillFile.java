package dev.vantage.trace.engine.store;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A block source for traces larger than memory: the first {@code heapBytes} bytes of blocks on the heap, every block
 * after them mapped from one temporary file, so reading a trace takes the same heap whatever its size (the operating
 * system keeps the pages in its cache or writes them out under pressure). A small trace never creates the file.
 * The file's name is removed as soon as it is open (the mappings keep its pages), so even a process killed with
 * {@code SIGKILL} leaves nothing behind; where the system cannot remove an open file, it goes at {@link #close()}
 * or at exit. Not thread-safe: one reader per source.
 */
public final class SpillFile implements BlockSource, Closeable {

    /** What a trace keeps on the heap before it maps: 32 MiB. */
    public static final long DEFAULT_HEAP_BYTES = 32L << 20;

    private final Path directory;
    private final long heapBytes;
    private long heapUsed;
    private FileChannel channel;
    private Path file;
    private long end;
    /** The mapping blocks are cut from, and the bytes handed out of all mappings. */
    private ByteBuffer region;
    private long used;

    /** The largest mapping made at once: mappings double from a block up to this. */
    static final long MAX_REGION_BYTES = 64L << 20;

    /** A source spilling to the system's temporary directory after {@link #DEFAULT_HEAP_BYTES}. */
    public SpillFile() {
        this(Path.of(System.getProperty("java.io.tmpdir")), DEFAULT_HEAP_BYTES);
    }

    /**
     * @param directory where the temporary file goes
     * @param heapBytes the bytes of blocks kept on the heap before the file is used; 0 maps every block
     */
    public SpillFile(Path directory, long heapBytes) {
        this.directory = directory;
        this.heapBytes = heapBytes;
    }

    @Override
    public ByteBuffer take(int bytes) {
        if (heapUsed + bytes <= heapBytes) {
            heapUsed += bytes;
            return HEAP.take(bytes);
        }
        try {
            if (channel == null) {
                file = Files.createTempFile(directory, "vantage-columns-", ".bin");
                file.toFile().deleteOnExit();
                channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE,
                        StandardOpenOption.DELETE_ON_CLOSE);
                try {
                    Files.delete(file);
                } catch (IOException e) {
                    // the system keeps an open file's name: deleted on close
                }
            }
            if (region == null || region.remaining() < bytes) {
                // one mapping serves many blocks: a mapping per block made a system call and an object per 256 KiB
                long size = Math.max(bytes, Math.min(MAX_REGION_BYTES, end));
                region = channel.map(FileChannel.MapMode.READ_WRITE, end, size);
                end += size;
            }
            ByteBuffer b = region.slice(region.position(), bytes).order(ByteOrder.nativeOrder());
            region.position(region.position() + bytes);
            used += bytes;
            return b;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot map a trace's columns in " + directory + ": " + e.getMessage(), e);
        }
    }

    /** Returns the bytes of the blocks handed out from the file so far. */
    public long mappedBytes() {
        return used;
    }

    /** Closes and deletes the file, if one was made; blocks already mapped stay readable until collected. */
    @Override
    public void close() {
        try {
            if (channel != null) {
                channel.close();
                Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            // deleted at exit
        } finally {
            channel = null;
            region = null;
        }
    }
}
