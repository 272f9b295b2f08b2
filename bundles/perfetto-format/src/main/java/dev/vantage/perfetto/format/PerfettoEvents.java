package dev.vantage.perfetto.format;

import java.io.IOException;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * What {@link PerfettoTraceReader#stream} hands over while it reads a trace, packet by packet in file order, so
 * that a reader of any size of trace holds only what it keeps. A method that throws stops the reading: the exception
 * comes out of {@code stream}.
 *
 * <p>Byte offsets count the file's bytes, the uncompressed ones of a gzip file.
 */
@ConsumerType
public interface PerfettoEvents {

    /** A track a descriptor declared. */
    void track(PerfettoTrace.Track track) throws IOException;

    /** One of the trace's {@code TraceAttributes}; a later one of the same key overrides. */
    void attribute(String key, String value) throws IOException;

    /** A track event. */
    void event(PerfettoEvent event) throws IOException;

    /** Something the reader could not make sense of (an unknown interning id, say); reading goes on. */
    void problem(String what) throws IOException;

    /** A packet whose bytes do not parse, starting at {@code offset}; reading goes on with the next packet. */
    void damagedPacket(long offset) throws IOException;

    /** The file ends inside the packet that starts at {@code offset}; nothing follows. */
    void cutOff(long offset) throws IOException;

    /** From {@code offset} on, the file's bytes are not framed as packets; nothing is read after. */
    void unreadable(long offset, String why) throws IOException;
}
