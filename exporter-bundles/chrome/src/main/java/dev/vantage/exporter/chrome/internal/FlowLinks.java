package dev.vantage.exporter.chrome.internal;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.Trace;

/**
 * Kineto's forward-to-backward links: a backward op carries its forward op's sequence number and thread, and the
 * first backward event of a (thread, sequence number) pair ends a flow that starts on the last forward op with
 * that pair. Flow ids count from 1 in the order forward ops are met, as Kineto numbers them. Found in one pass
 * over the trace before it is written, so the writer can emit each {@code s} and {@code f} inline; the memory is
 * one entry per linked pair.
 */
final class FlowLinks {

    private final Map<Long, Long> idByKey = new HashMap<>();
    private final Map<Long, Long> lastForwardEvent = new HashMap<>();
    private final Set<Long> ended = new HashSet<>();
    private long nextId = 1;

    FlowLinks(Trace trace) {
        Set<Long> backward = new HashSet<>();
        EventCursor c = trace.events();
        while (c.next()) {
            if (c.kind() == EventKind.CPU_OP && c.sequenceNumber() >= 0) {
                if (c.forwardThreadId() >= 0) {
                    backward.add(key(c.forwardThreadId(), c.sequenceNumber()));
                } else {
                    long key = key(c.threadId(), c.sequenceNumber());
                    Long previous = lastForwardEvent.get(key);
                    if (previous == null) {
                        idByKey.put(key, 0L);
                    }
                    lastForwardEvent.put(key, c.eventId());
                }
            }
        }
        idByKey.keySet().retainAll(backward);
        lastForwardEvent.keySet().retainAll(idByKey.keySet());
    }

    /** Kineto's key: the low 16 bits of the thread, the low 48 of the sequence number. */
    private static long key(long thread, long seq) {
        return (thread & 0xFFFF) << 48 | seq & 0xFFFF_FFFF_FFFFL;
    }

    /** The flow's id; a linked pair holds 0 until its first event is written, then the next dense id. */
    private long id(long key) {
        long id = idByKey.get(key);
        if (id == 0) {
            id = nextId++;
            idByKey.put(key, id);
        }
        return id;
    }

    /** Returns the id of the flow this forward op starts, or 0 when it starts none. */
    long start(long threadId, long seq, long eventId) {
        long key = key(threadId, seq);
        Long last = lastForwardEvent.get(key);
        return last != null && last == eventId ? id(key) : 0;
    }

    /** Returns the id of the flow this backward op ends, or 0 when it ends none (only the first one does). */
    long end(long forwardThreadId, long seq) {
        long key = key(forwardThreadId, seq);
        if (!idByKey.containsKey(key) || !ended.add(key)) {
            return 0;
        }
        return id(key);
    }
}
