package dev.vantage.trace.engine.read;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The second pass over a Chrome trace that is not valid JSON: reads the file's bytes and gives Jackson valid JSON in
 * their place, one event at a time, with what {@link JsonElementRepair} repaired counted in a {@link TraceRepairs}
 * account, and what has no reading skipped: an event whose bytes make no sense (reading goes on at the next event),
 * and the event a killed writer cut off. A file cut off between events ends there, as the Trace Event Format allows
 * for torch's legacy array (without its {@code ]}, or with a last {@code ,}); Kineto's object closed for it is counted.
 *
 * <p>Design: the file is either torch's array of events or Kineto's object, whose {@code traceEvents} member is the
 * array; every other member and every event is read whole into memory (at most {@link #MAX_VALUE} bytes each) and
 * written again, minified, when it has a reading. Memory is therefore bounded by the largest event, whatever the
 * file's size. Offsets in the account are the file's (its uncompressed bytes for gzip); Jackson's offsets in the
 * repaired bytes map back to the file's at each event's start ({@link #fileOffset}). Not thread-safe.
 */
final class JsonRepairStream extends InputStream {

    /** The most bytes one event (or one member of the trace object) may have. */
    static final int MAX_VALUE = 64 << 20;
    private static final byte[] TRACE_EVENTS = "\"traceEvents\"".getBytes(StandardCharsets.US_ASCII);
    /** Starts of the last events given to the parser, for {@link #fileOffset}: a ring of this many. */
    private static final int RING = 1 << 13;

    private enum Where { START, MEMBERS, EVENTS, END }

    private final InputStream in;
    private final TraceRepairs account;
    private final JsonElementRepair element = new JsonElementRepair();

    // the file's bytes not yet consumed: buf[pos, lim), buf[0] at offset base
    private byte[] buf = new byte[1 << 16];
    private long base;
    private int pos;
    private int lim;
    private boolean eof;

    // the repaired bytes not yet read: out[outPos, outLen), out[0] at repaired offset outBase
    private byte[] out = new byte[1 << 16];
    private int outPos;
    private int outLen;
    private long outBase;

    private Where where = Where.START;
    private boolean legacy;
    private boolean needComma;
    private boolean eventsDone;
    /** Whether {@code pos} is at the event reading went on at after a damaged one (its comma is behind it). */
    private boolean resumed;
    private final long[] ringOut = new long[RING];
    private final long[] ringIn = new long[RING];
    private long ringCount;

    JsonRepairStream(InputStream in, TraceRepairs account) {
        this.in = in;
        this.account = account;
    }

    /**
     * The file offset of a position in the repaired bytes at the start of an event the parser has read recently
     * (within the last {@value #RING} events), else an estimate from the nearest event start before it.
     */
    long fileOffset(long repairedOffset) {
        long n = Math.min(ringCount, RING);
        long best = -1;
        int at = -1;
        for (long k = 0; k < n; k++) {
            int i = (int) ((ringCount - 1 - k) % RING);
            if (ringOut[i] <= repairedOffset && ringOut[i] > best) {
                best = ringOut[i];
                at = i;
                if (ringOut[i] == repairedOffset) {
                    break;
                }
            }
        }
        return at < 0 ? repairedOffset : ringIn[at] + (repairedOffset - best);
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] target, int off, int len) throws IOException {
        while (outPos == outLen) {
            if (where == Where.END) {
                return -1;
            }
            outBase += outLen;
            outPos = 0;
            outLen = 0;
            step();
        }
        int n = Math.min(len, outLen - outPos);
        System.arraycopy(out, outPos, target, off, n);
        outPos += n;
        return n;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }

    /** Produces the next piece of repaired output: the opening, one member or event, or the ending. */
    private void step() throws IOException {
        switch (where) {
            case START -> start();
            case MEMBERS -> member();
            case EVENTS -> event();
            default -> {
            }
        }
    }

    private void start() throws IOException {
        while (lim - pos < 3 && !eof) {
            more();
        }
        if (lim - pos >= 3 && buf[pos] == (byte) 0xEF && buf[pos + 1] == (byte) 0xBB && buf[pos + 2] == (byte) 0xBF) {
            pos += 3; // a byte order mark
        }
        int p = skipSpace(pos);
        if (p < 0) {
            throw damaged(pos, "the file is empty");
        }
        if (buf[p] == '[') {
            legacy = true;
            emit('[');
            where = Where.EVENTS;
        } else if (buf[p] == '{') {
            emit('{');
            where = Where.MEMBERS;
        } else {
            throw damaged(p, "it is not a JSON object or array");
        }
        pos = p + 1;
    }

    /** One member of Kineto's object, or its end; {@code traceEvents} opens the events. */
    private void member() throws IOException {
        int p = skipSpace(pos);
        if (p < 0) {
            account.repaired(TraceRepairs.Kind.UNCLOSED, base + lim);
            finish();
            return;
        }
        pos = p;
        if (buf[p] == '}') {
            emit('}');
            pos = p + 1;
            where = Where.END;
            return;
        }
        if (buf[p] == ',') {
            if (!needComma) {
                throw damaged(p, "a comma where a member of the trace object goes");
            }
            long comma = base + p;
            int q = skipSpace(p + 1);
            if (q < 0) {
                pos = lim;
                return; // the end of the file: the next step closes
            }
            if (buf[q] == '}') {
                account.repaired(TraceRepairs.Kind.TRAILING_COMMA, comma);
                pos = q;
                return;
            }
            p = q;
            pos = p;
        } else if (needComma) {
            if (buf[p] != '"') {
                throw damaged(p, "neither a comma nor the end of the trace object");
            }
            account.repaired(TraceRepairs.Kind.MISSING_COMMA, base + p);
        }
        if (!eventsDone && startsTraceEvents()) {
            if (needComma) {
                emit(',');
            }
            emit(TRACE_EVENTS);
            emit(':');
            emit('[');
            where = Where.EVENTS;
            needComma = false;
            return;
        }
        while (true) {
            int r = element.member(buf, pos, lim, eof, base);
            if (r == JsonElementRepair.NEED_MORE) {
                more();
                continue;
            }
            if (r == JsonElementRepair.END_OF_INPUT) {
                account.repaired(TraceRepairs.Kind.UNCLOSED, base + pos);
                pos = lim;
                finish();
                return;
            }
            if (r == JsonElementRepair.FAILED) {
                throw damaged(element.end, "a member of the trace object has no reading");
            }
            break;
        }
        commitRepairs();
        if (needComma) {
            emit(',');
        }
        emit(element.out, element.outLen);
        needComma = true;
        pos = element.end;
    }

    /** Whether {@code "traceEvents" : [} starts at {@code pos}; if so, consumes it. Reads more bytes when needed. */
    private boolean startsTraceEvents() throws IOException {
        while (lim - pos < 64 && !eof) {
            more();
        }
        int p = pos;
        if (lim - p < TRACE_EVENTS.length || !Arrays.equals(buf, p, p + TRACE_EVENTS.length, TRACE_EVENTS, 0,
                TRACE_EVENTS.length)) {
            return false;
        }
        int q = p + TRACE_EVENTS.length;
        while (q < lim && isSpace(buf[q])) {
            q++;
        }
        if (q >= lim || buf[q] != ':') {
            return false;
        }
        q++;
        while (q < lim && isSpace(buf[q])) {
            q++;
        }
        if (q >= lim || buf[q] != '[') {
            return false;
        }
        pos = q + 1;
        return true;
    }

    /** One event, or the end of the events. */
    private void event() throws IOException {
        int p = skipSpace(pos);
        if (p < 0) {
            // the end of the file between events: the Trace Event Format allows it of the array; Kineto's object
            // is closed for it
            if (!legacy) {
                account.repaired(TraceRepairs.Kind.UNCLOSED, base + lim);
            }
            pos = lim;
            finish();
            return;
        }
        pos = p;
        byte c = buf[p];
        if (c == ']') {
            emit(']');
            pos = p + 1;
            endEvents();
            return;
        }
        if (c == ',') {
            long comma = base + p;
            if (!needComma) {
                account.repaired(TraceRepairs.Kind.MISSING_VALUE, comma);
                pos = p + 1;
                return;
            }
            int q = skipSpace(p + 1);
            if (q < 0) {
                // a last comma, as a killed writer leaves it: the Trace Event Format allows it of the array
                if (!legacy) {
                    account.repaired(TraceRepairs.Kind.UNCLOSED, comma);
                }
                pos = lim;
                finish();
                return;
            }
            if (buf[q] == ']') {
                account.repaired(TraceRepairs.Kind.TRAILING_COMMA, comma);
                pos = q;
                return;
            }
            pos = q;
        } else if (needComma && !resumed) {
            account.repaired(TraceRepairs.Kind.MISSING_COMMA, base + p);
        }
        resumed = false;
        readEvent();
    }

    /** The event at {@code pos}. */
    private void readEvent() throws IOException {
        while (true) {
            int r = buf[pos] == '{' ? element.value(buf, pos, lim, eof, base) : JsonElementRepair.FAILED;
            if (r == JsonElementRepair.NEED_MORE && lim - pos >= MAX_VALUE) {
                r = JsonElementRepair.FAILED; // no event is that long: one read wrongly to here, from a stray quote
            }
            if (r == JsonElementRepair.NEED_MORE) {
                more();
                continue;
            }
            if (r == JsonElementRepair.END_OF_INPUT) {
                // where the file ends, as the first pass counts a cut (the event's start is before it)
                account.skipped(TraceRepairs.Kind.CUT_OFF, base + lim);
                pos = lim;
                finish();
                return;
            }
            if (r == JsonElementRepair.FAILED) {
                skipDamaged();
                return;
            }
            break;
        }
        commitRepairs();
        if (needComma) {
            emit(',');
        }
        remember(base + pos);
        emit(element.out, element.outLen);
        needComma = true;
        pos = element.end;
    }

    /**
     * An event without a reading at {@code pos}: skipped to the next place an event starts (a <code>{</code> after a
     * comma, followed by a key, that reads whole and is followed by a comma or the end of the events), or to the
     * end of the file. Leaves {@code pos} at that start.
     */
    private void skipDamaged() throws IOException {
        account.skipped(TraceRepairs.Kind.DAMAGED_EVENT, base + pos);
        byte previous = 0;
        int q = pos + 1;
        pos = q;
        while (true) {
            if (q >= lim) {
                if (eof) {
                    pos = lim;
                    finish();
                    return;
                }
                q -= more();
                continue;
            }
            byte c = buf[q];
            if (c == '{' && previous == ',' && keyFollows(q)) {
                pos = q;
                int r = element.value(buf, q, lim, eof, base);
                if (r == JsonElementRepair.NEED_MORE && lim - q < MAX_VALUE) {
                    q -= more();
                    continue;
                }
                if (r == JsonElementRepair.OK && follows(element.end)) {
                    resumed = true;
                    return;
                }
            }
            if (!isSpace(c)) {
                previous = c;
            }
            q++;
            if (q - pos > (1 << 16)) {
                pos = q - 1; // junk before the last byte is not needed any more
            }
        }
    }

    /** Whether a key or the end of an object follows the brace at {@code q}, whitespace aside. */
    private boolean keyFollows(int q) {
        int j = q + 1;
        while (j < lim && isSpace(buf[j])) {
            j++;
        }
        return j >= lim || buf[j] == '"' || buf[j] == '}';
    }

    /** Whether a comma, the end of the events, or the end of the file follows {@code at}. */
    private boolean follows(int at) {
        int i = at;
        while (i < lim && isSpace(buf[i])) {
            i++;
        }
        return i >= lim ? eof : buf[i] == ',' || buf[i] == ']';
    }

    private void endEvents() {
        eventsDone = true;
        needComma = true;
        where = legacy ? Where.END : Where.MEMBERS;
    }

    /** The file ended: closes what is open. */
    private void finish() {
        if (where == Where.EVENTS) {
            emit(']');
            if (!legacy) {
                emit('}');
            }
        } else if (where == Where.MEMBERS) {
            emit('}');
        }
        where = Where.END;
    }

    private void commitRepairs() throws IOException {
        for (int i = 0; i < element.repairs; i++) {
            account.repaired(element.repairKinds[i], element.repairOffsets[i]);
        }
    }

    private void remember(long fileOffset) {
        int i = (int) (ringCount % RING);
        ringOut[i] = outBase + outLen;
        ringIn[i] = fileOffset;
        ringCount++;
    }

    /**
     * The index of the first byte from {@code from} on that is not whitespace, reading more as needed (the
     * whitespace is consumed); -1 at the end of the file.
     */
    private int skipSpace(int from) throws IOException {
        int p = from;
        while (true) {
            while (p < lim && isSpace(buf[p])) {
                p++;
            }
            if (p < lim) {
                return p;
            }
            if (eof) {
                return -1;
            }
            pos = Math.max(pos, Math.min(p, lim));
            p -= more();
        }
    }

    /**
     * Reads more of the file, keeping {@code buf[pos, lim)}, which moves to the start of the buffer.
     *
     * @return how far the kept bytes moved down: indices into the buffer decrease by it
     * @throws DamagedTraceException when one value outgrows {@link #MAX_VALUE}
     */
    private int more() throws IOException {
        if (eof) {
            return 0;
        }
        int shift = pos;
        if (pos > 0) {
            int n = lim - pos;
            System.arraycopy(buf, pos, buf, 0, n);
            base += pos;
            lim = n;
            pos = 0;
        }
        if (lim == buf.length) {
            if (buf.length >= MAX_VALUE) {
                throw damaged(0, "an event longer than " + (MAX_VALUE >> 20) + " MiB");
            }
            buf = Arrays.copyOf(buf, Math.min(buf.length * 2, MAX_VALUE));
        }
        int n = in.read(buf, lim, buf.length - lim);
        if (n < 0) {
            eof = true;
        } else {
            lim += n;
            element.allow(n);
        }
        return shift;
    }

    private static boolean isSpace(byte c) {
        return c == ' ' || c == '\n' || c == '\r' || c == '\t';
    }

    private void emit(char c) {
        emit((byte) c);
    }

    private void emit(byte c) {
        if (outLen == out.length) {
            out = Arrays.copyOf(out, out.length * 2);
        }
        out[outLen++] = c;
    }

    private void emit(byte[] bytes) {
        emit(bytes, bytes.length);
    }

    private void emit(byte[] bytes, int n) {
        if (outLen + n > out.length) {
            out = Arrays.copyOf(out, Math.max(out.length * 2, outLen + n));
        }
        System.arraycopy(bytes, 0, out, outLen, n);
        outLen += n;
    }

    private DamagedTraceException damaged(int p, String what) {
        return account.refusal(base + p, what);
    }
}
