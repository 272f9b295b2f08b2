package dev.vantage.profiler.core.internal;

import dev.vantage.profiler.spi.OpCall;
import dev.vantage.profiler.spi.OpNames;

/**
 * The layout of the details an event carries in its thread's {@link LongArena}, in the order events were
 * recorded: the slot, a header (flags and input count), then the sequence number, forward thread id and stack id
 * when flagged, then per input {@code typeId << 8 | rank} followed by the sizes.
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

    private Details() {
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
        boolean ok = arena.add(slot) && arena.add(flags | ((long) inputs << 8));
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
            int rank = Math.min(call.inputRank(i), MAX_RANK);
            ok = arena.add(((long) typeId(call.inputType(i)) << 8) | rank);
            for (int d = 0; ok && d < rank; d++) {
                ok = arena.add(call.inputDim(i, d));
            }
        }
        if (!ok) {
            arena.truncate(mark);
        }
        return ok;
    }

    /** Appends a memory event's details; returns false, leaving the arena as it was, when memory ran out. */
    static boolean writeMemory(LongArena arena, int slot, String deviceType, int deviceIndex, long address,
            long bytes, long totalAllocated, long totalReserved) {
        long mark = arena.size();
        boolean ok = arena.add(slot) && arena.add(MEMORY) && arena.add(OpNames.intern(deviceType))
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
        if ((arena.get(at + 1) & MEMORY) == 0) {
            return false;
        }
        for (int i = 0; i < 6; i++) {
            out[i] = arena.get(at + 2 + i);
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
        long header = arena.get(at + 1);
        int flags = (int) (header & 0xFF);
        if ((flags & MEMORY) != 0) {
            return at + 8;
        }
        int inputs = (int) ((header >>> 8) & 0xFF);
        long p = at + 2 + Integer.bitCount(flags & (SEQUENCE | FORWARD_THREAD | STACK));
        for (int i = 0; i < inputs; i++) {
            p += 1 + (arena.get(p) & 0xFF);
        }
        return p;
    }

    /** Reads the details at a position; returns the position after them through {@code next[0]}. */
    static Read read(LongArena.View arena, long at, long[] next) {
        long header = arena.get(at + 1);
        int flags = (int) (header & 0xFF);
        if ((flags & MEMORY) != 0) {
            if (next != null) {
                next[0] = at + 8;
            }
            return Read.NONE;
        }
        int inputs = (int) ((header >>> 8) & 0xFF);
        long p = at + 2;
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
            int rank = (int) (word & 0xFF);
            types[i] = OpNames.name((int) (word >>> 8));
            shapes[i] = new long[rank];
            for (int d = 0; d < rank; d++) {
                shapes[i][d] = arena.get(p++);
            }
        }
        if (next != null) {
            next[0] = p;
        }
        return new Read(seq, fwd, stack, shapes, types);
    }
}
