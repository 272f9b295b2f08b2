package dev.vantage.trace.engine.store;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Where the blocks of {@link Column}s and {@link HostRows} come from: the heap ({@link #HEAP}), direct memory
 * ({@link #DIRECT}), a memory-mapped temporary file ({@link SpillFile}), or a recorder's budgeted pool. Blocks are
 * zeroed and in native byte order.
 */
@ConsumerType
@FunctionalInterface
public interface BlockSource {

    /** Blocks on the Java heap: for small columns and tests. */
    BlockSource HEAP = bytes -> ByteBuffer.allocate(bytes).order(ByteOrder.nativeOrder());

    /** Direct blocks: off the heap, so a column of tens of millions of values costs the collector nothing. */
    BlockSource DIRECT = bytes -> ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());

    /** A source that has nothing: what a frozen view holds, since it never grows. */
    BlockSource NONE = bytes -> null;

    /**
     * Returns a zeroed block of {@code bytes} bytes, or null when this source has no memory left (a recorder then
     * drops and counts the event).
     */
    ByteBuffer take(int bytes);
}
