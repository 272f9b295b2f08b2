package dev.vantage.profiler.core.internal;

import dev.vantage.profiler.dispatch.OpCall;
import dev.vantage.profiler.dispatch.OpNames;

/**
 * The layout of the details an event carries in its thread's {@link LongArena}, in the order events were
 * recorded. The first long holds the slot (low 32 bits), the flags (bits 32-39) and the input count (bits 40-47);
 * then come the sequence number, forward thread id and stack id when flagged, then one entry per input. An input
 * whose dims all fit in 32 bits (all of them, in practice) is narrow: one long with its dtype id (bits 40-62),
 * rank (bits 32-39) and first dim (bits 0-31), then its other dims two to a long. Any other input is wide: bit 63
 * set, the rank, the dtype id in the low 32 bits, then one long per dim. So a matrix input takes two longs where
 * one long per dim would take three, and an event's details are written with a few stores.
 */
final class Details {

    static final int SEQUENCE = 1;
    static final int FORWARD_THREAD = 2;
    static final int STACK = 4;
    static final int SHAPES = 8;
    /** A memory event: device type id, device index, address, bytes, total allocated, total reserved. */
    static final int MEMORY = 16;
    static final int MAX_INPUTS = 255;
    static final int MAX_RANK = 255;

    private static final long WIDE = 1L << 63;
    private static final long LOW32 = 0xFFFF_FFFFL;
    private static final int NARROW_TYPE_LIMIT = 1 << 23;

    private Details() {
    }

    /** The first long of an entry. */
    private static long head(int slot, int flags, int inputs) {
        return (slot & LOW32) | ((long) flags << 32) | ((long) inputs << 40);
    }

    private static int flags(long head) {
        return (int) (head >>> 32) & 0xFF;
    }

    private static int inputs(long head) {
        return (int) (head >>> 40) & 0xFF;
    }

    /** Returns the slot an entry belongs to. */
    static int slot(LongArena.View arena, long at) {
        return (int) arena.get(at);
    }

    /**
     * Appends an event's details; returns false, leaving the arena as it was, when memory ran out.
     *
     * @param stackId the interned stack, or -1 for none
     */
    static boolean write(LongArena arena, int slot, OpCall call, boolean shapes, int stackId) {
        long mark = arena.size();
        long seq = call.sequenceNumber();
        long fwd = call.forwardThreadId();
        int inputs = shapes ? Math.min(call.inputCount(), MAX_INPUTS) : 0;
        int flags = (seq >= 0 ? SEQUENCE : 0) | (fwd >= 0 ? FORWARD_THREAD : 0) | (stackId >= 0 ? STACK : 0)
                | (shapes ? SHAPES : 0);
        boolean ok = arena.add(head(slot, flags, inputs));
        if (ok && seq >= 0) {
            ok = arena.add(seq);
        }
        if (ok && fwd >= 0) {
            ok = arena.add(fwd);
        }
        if (ok && stackId >= 0) {
            ok = arena.add(stackId);
        }
        for (int i = 0; ok && i < inputs; i++) {
            ok = writeInput(arena, call, i);
        }
        if (!ok) {
            arena.truncate(mark);
        }
        return ok;
    }

    /** Appends one input, narrow when its dtype id and dims allow, else wide. */
    private static boolean writeInput(LongArena arena, OpCall call, int i) {
        int rank = Math.min(call.inputRank(i), MAX_RANK);
        int type = typeId(call.inputType(i));
        long mark = arena.size();
        if (type < NARROW_TYPE_LIMIT) {
            long first = rank > 0 ? call.inputDim(i, 0) : 0;
            boolean narrow = (first & ~LOW32) == 0;
            boolean ok = arena.add(((long) type << 40) | ((long) rank << 32) | (first & LOW32));
            for (int d = 1; ok && narrow && d < rank; d += 2) {
                long a = call.inputDim(i, d);
                long b = d + 1 < rank ? call.inputDim(i, d + 1) : 0;
                narrow = ((a | b) & ~LOW32) == 0;
                ok = arena.add(a | (b << 32));
            }
            if (!ok || narrow) {
                return ok;
            }
            arena.truncate(mark);   // a dim needs more than 32 bits: rewrite the input wide
        }
        boolean ok = arena.add(WIDE | ((long) rank << 32) | (type & LOW32));
        for (int d = 0; ok && d < rank; d++) {
            ok = arena.add(call.inputDim(i, d));
        }
        return ok;
    }

    /** Appends a memory event's details; returns false, leaving the arena as it was, when memory ran out. */
    static boolean writeMemory(LongArena arena, int slot, String deviceType, int deviceIndex, long address,
            long bytes, long totalAllocated, long totalReserved) {
        long mark = arena.size();
        boolean ok = arena.add(head(slot, MEMORY, 0)) && arena.add(OpNames.intern(deviceType))
                && arena.add(deviceIndex) && arena.add(address) && arena.add(bytes) && arena.add(totalAllocated)
                && arena.add(totalReserved);
        if (!ok) {
            arena.truncate(mark);
        }
        return ok;
    }

    /**
     * Reads a memory event's details into {@code out}: device type id, device index, address, bytes, total
     * allocated, total reserved. Returns false if the details at that position are not a memory event's.
     */
    static boolean readMemory(LongArena.View arena, long at, long[] out) {
        if ((flags(arena.get(at)) & MEMORY) == 0) {
            return false;
        }
        for (int i = 0; i < 6; i++) {
            out[i] = arena.get(at + 1 + i);
        }
        return true;
    }

    /** A dtype name interned and its id: dtype names are a handful of constants, so the cache mostly hits. */
    private static final class LastType {
        final String name;
        final int id;

        LastType(String name, int id) {
            this.name = name;
            this.id = id;
        }
    }

    /**
     * Type names seen lately, by hash: an op's inputs mix a few names ({@code float}, {@code Scalar}, ...), so one
     * slot would be replaced, and allocate, on nearly every op. Racy on purpose: entries are immutable.
     */
    private static final LastType[] TYPES = new LastType[16];

    private static int typeId(String name) {
        int mask = TYPES.length - 1;
        int home = name.hashCode() & mask;
        int free = home;
        // names like "float", "Scalar" and "long" share a hash slot, so probe a few
        for (int i = 0; i < 4; i++) {
            int slot = (home + i) & mask;
            LastType t = TYPES[slot];
            if (t == null) {
                free = slot;
                break;
            }
            if (t.name == name) {
                return t.id;
            }
        }
        int id = OpNames.intern(name);
        TYPES[free] = new LastType(name, id);
        return id;
    }

    /** The details of one event, read back. */
    record Read(long sequenceNumber, long forwardThreadId, int stackId, long[][] shapes, String[] types) {
        static final Read NONE = new Read(-1, -1, -1, new long[0][], new String[0]);
    }

    /** Returns the position after the details at a position, reading only what it must. */
    static long skip(LongArena.View arena, long at) {
        long head = arena.get(at);
        int flags = flags(head);
        if ((flags & MEMORY) != 0) {
            return at + 7;
        }
        long p = at + 1 + Integer.bitCount(flags & (SEQUENCE | FORWARD_THREAD | STACK));
        for (int i = inputs(head); i > 0; i--) {
            long word = arena.get(p);
            int rank = (int) (word >>> 32) & 0xFF;
            p += 1 + ((word & WIDE) != 0 ? rank : rank / 2);
        }
        return p;
    }

    /** Reads the details at a position; returns the position after them through {@code next[0]}. */
    static Read read(LongArena.View arena, long at, long[] next) {
        long head = arena.get(at);
        int flags = flags(head);
        if ((flags & MEMORY) != 0) {
            if (next != null) {
                next[0] = at + 7;
            }
            return Read.NONE;
        }
        int inputs = inputs(head);
        long p = at + 1;
        long seq = -1;
        long fwd = -1;
        int stack = -1;
        if ((flags & SEQUENCE) != 0) {
            seq = arena.get(p++);
        }
        if ((flags & FORWARD_THREAD) != 0) {
            fwd = arena.get(p++);
        }
        if ((flags & STACK) != 0) {
            stack = (int) arena.get(p++);
        }
        long[][] shapes = new long[inputs][];
        String[] types = new String[inputs];
        for (int i = 0; i < inputs; i++) {
            long word = arena.get(p++);
            int rank = (int) (word >>> 32) & 0xFF;
            long[] dims = new long[rank];
            if ((word & WIDE) != 0) {
                types[i] = OpNames.name((int) (word & LOW32));
                for (int d = 0; d < rank; d++) {
                    dims[d] = arena.get(p++);
                }
            } else {
                types[i] = OpNames.name((int) (word >>> 40) & (NARROW_TYPE_LIMIT - 1));
                if (rank > 0) {
                    dims[0] = word & LOW32;
                }
                for (int d = 1; d < rank; d += 2) {
                    long pair = arena.get(p++);
                    dims[d] = pair & LOW32;
                    if (d + 1 < rank) {
                        dims[d + 1] = pair >>> 32;
                    }
                }
            }
            shapes[i] = dims;
        }
        if (next != null) {
            next[0] = p;
        }
        return new Read(seq, fwd, stack, shapes, types);
    }
}
