package dev.vantage.trace.engine.read;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Splits an ONNX Runtime profile into parts that are JSON arrays of whole events, reads them on threads of their own
 * and joins the columns in the file's order. ONNX Runtime writes one event a line, every line after the first
 * starting with <code>{"cat"</code> and every line before the last ending with a comma; a part starts at such a line
 * and ends before the comma that precedes the next part's first line. Strings inside events cannot hold a raw line
 * break (JSON escapes it), so the three bytes <code>,\n{</code> followed by {@code "cat"} occur only between events.
 */
final class OrtSplit {

    /** Reads one part: a stream holding a JSON array of events, of about {@code bytes} bytes. */
    interface PartReader {
        OrtProfile read(InputStream in, long bytes) throws IOException;
    }

    private static final byte[] EVENT_LINE = "\n{\"cat\"".getBytes(StandardCharsets.US_ASCII);
    /** How far past a split point the next event's line is looked for. */
    private static final int LOOK = 1 << 20;

    private OrtSplit() {
    }

    /**
     * Returns the parts' bounds: {@code bounds[k]} is where part {@code k} starts, {@code bounds[k + 1]} where the
     * next starts, the last the file's size. Part 0 starts at 0 (the file's {@code [}); a later part at its first
     * event's <code>{</code>. Fewer parts than asked when a split point has no event line within a mebibyte after it.
     */
    static long[] bounds(Path file, long size, int parts) throws IOException {
        List<Long> starts = new ArrayList<>();
        starts.add(0L);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer window = ByteBuffer.allocate(LOOK);
            for (int k = 1; k < parts; k++) {
                long from = Math.max(size * k / parts, starts.get(starts.size() - 1) + 1);
                long at = eventLine(ch, from, window);
                if (at > 0 && at < size) {
                    starts.add(at);
                }
            }
        }
        long[] bounds = new long[starts.size() + 1];
        for (int k = 0; k < starts.size(); k++) {
            bounds[k] = starts.get(k);
        }
        bounds[starts.size()] = size;
        return bounds;
    }

    /** Returns the position of the first event's <code>{</code> at or after {@code from} on a line of its own, or -1. */
    private static long eventLine(FileChannel ch, long from, ByteBuffer window) throws IOException {
        window.clear();
        int n = 0;
        while (window.hasRemaining()) {
            int got = ch.read(window, from + n);
            if (got < 0) {
                break;
            }
            n += got;
        }
        byte[] b = window.array();
        for (int i = 0; i + EVENT_LINE.length <= n; i++) {
            if (b[i] == '\n' && matches(b, i)) {
                // the line before ends with a comma (and maybe a carriage return or spaces): else no split here
                return commaBefore(ch, from + i) >= 0 ? from + i + 1 : -1;
            }
        }
        return -1;
    }

    private static boolean matches(byte[] b, int i) {
        for (int j = 1; j < EVENT_LINE.length; j++) {
            if (b[i + j] != EVENT_LINE[j]) {
                return false;
            }
        }
        return true;
    }

    /** Returns the position of the comma ending the line that breaks at {@code lineBreak}, or -1. */
    private static long commaBefore(FileChannel ch, long lineBreak) throws IOException {
        ByteBuffer one = ByteBuffer.allocate(1);
        for (long at = lineBreak - 1; at >= 0 && at > lineBreak - 64; at--) {
            one.clear();
            if (ch.read(one, at) != 1) {
                return -1;
            }
            byte c = one.get(0);
            if (c == ',') {
                return at;
            }
            if (c != ' ' && c != '\t' && c != '\r') {
                return -1;
            }
        }
        return -1;
    }

    /**
     * Reads the parts, the first on the calling thread and each other on a thread of its own, and joins them.
     *
     * @return the joined columns, or null when a part did not read whole (the caller reads the file in one pass)
     */
    static OrtProfile readParts(Path file, long[] bounds, PartReader reader) throws IOException {
        int parts = bounds.length - 1;
        AtomicReferenceArray<OrtProfile> read = new AtomicReferenceArray<>(parts);
        Thread[] threads = new Thread[parts];
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            for (int k = 1; k < parts; k++) {
                int part = k;
                threads[k] = new Thread(() -> read.set(part, readQuietly(ch, bounds, part, reader)),
                        "vantage-ort-read-" + k);
                threads[k].setDaemon(true);
                threads[k].start();
            }
            read.set(0, readQuietly(ch, bounds, 0, reader));
            for (int k = 1; k < parts; k++) {
                try {
                    threads[k].join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while reading " + file, e);
                }
            }
        }
        OrtProfile joined = read.get(0);
        for (int k = 1; k < parts && joined != null; k++) {
            OrtProfile next = read.get(k);
            joined = next == null ? null : joined.append(next);
        }
        return joined;
    }

    private static OrtProfile readQuietly(FileChannel ch, long[] bounds, int part, PartReader reader) {
        try {
            long start = bounds[part];
            long end = bounds[part + 1];
            boolean last = part == bounds.length - 2;
            if (!last) {
                end = commaBefore(ch, end - 1);   // the next part starts after "\n": the comma ends this one
                if (end < 0) {
                    return null;
                }
            }
            InputStream body = new Bounded(ch, start, end);
            InputStream in = body;
            if (part > 0) {
                in = new SequenceInputStream(bytes("["), in);
            }
            if (!last) {
                in = new SequenceInputStream(in, bytes("]"));
            }
            return reader.read(new java.io.BufferedInputStream(in, 1 << 16), end - start);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static InputStream bytes(String s) {
        return new ByteArrayInputStream(s.getBytes(StandardCharsets.US_ASCII));
    }

    /** The bytes {@code [start, end)} of a file, read at positions, so parts share one channel. */
    private static final class Bounded extends InputStream {
        private final FileChannel ch;
        private long at;
        private final long end;

        Bounded(FileChannel ch, long start, long end) {
            this.ch = ch;
            this.at = start;
            this.end = end;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) == 1 ? one[0] & 0xff : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (at >= end) {
                return -1;
            }
            int n = (int) Math.min(len, end - at);
            int got = ch.read(ByteBuffer.wrap(b, off, n), at);
            if (got > 0) {
                at += got;
            }
            return got;
        }
    }
}
