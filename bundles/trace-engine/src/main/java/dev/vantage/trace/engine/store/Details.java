package dev.vantage.trace.engine.store;

import java.util.function.IntFunction;

import dev.vantage.profiler.memory.MemoryCategory;
import dev.vantage.profiler.dispatch.OpCall;
import dev.vantage.profiler.dispatch.OpNames;

/**
 * The layout of the details an event carries in its thread's details {@link Column} (of longs), in the order
 * events were recorded. Names (dtype names, a memory event's device type) are ids the trace's name table resolves:
 * the recorder's are {@link OpNames} ids, a reader's its own. The first long holds the slot (low 32 bits), the flags
 * (bits 32-39) and the input count (bits 40-47); then come the sequence number, forward thread id and stack id when flagged, then one entry per input. An input
 * whose dims all fit in 32 bits (all of them, in practice) is narrow: one long with its dtype id (bits 40-62),
 * rank (bits 32-39) and first dim (bits 0-31), then its other dims two to a long. Any other input is wide: bit 63
 * set, the rank, the dtype id in the low 32 bits, then one long per dim. So a matrix input takes two longs where
 * one long per dim would take three, and an event's details are written with a few stores.
 *
 * <p>A memory event's head carries its {@link MemoryCategory} index where an op's carries its input count.
 *
 * <p>An op recorded again with the same inputs as its last recording on the thread (a training or serving loop does
 * little else) writes none of them: the head's {@link #REPEAT} flag says the inputs are those that start
 * {@code head >>> 48} longs before it. {@link Recent} remembers each op's last inputs per thread; a repeat is
 * written only while that distance fits in the head's top 16 bits, so every entry stays readable on its own.
 */
public final class Details {

    public static final int SEQUENCE = 1;
    public static final int FORWARD_THREAD = 2;
    public static final int STACK = 4;
    public static final int SHAPES = 8;
    /** A memory event: device type id, device index, address, bytes, total allocated, total reserved. */
    public static final int MEMORY = 16;
    /** The inputs are those of an earlier entry, {@code head >>> 48} longs before this one. */
    public static final int REPEAT = 32;
    /** The farthest back a repeat may point. */
    public static final int MAX_BACK = 0xFFFF;
    public static final int MAX_INPUTS = 255;
    public static final int MAX_RANK = 255;

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
    public static int slot(Column arena, long at) {
        return (int) arena.getLong(at);
    }

    /**
     * The inputs one recording thread wrote lately, per op (by name id, in a small direct-mapped table), and the
     * scratch space an event's inputs are encoded into before they are compared and written. Written by its thread
     * only; allocates only when an op's inputs need more room than before.
     */
    public static final class Recent {
        private static final int ENTRIES = 64;

        private final int[] names = new int[ENTRIES];
        private final int[] counts = new int[ENTRIES];
        private final int[] lengths = new int[ENTRIES];
        private final long[] at = new long[ENTRIES];
        private final long[][] words = new long[ENTRIES][];
        private long[] scratch = new long[16];

        public Recent() {
            java.util.Arrays.fill(names, -1);
        }
    }

    /**
     * Appends an event's details; returns false, leaving the arena as it was, when memory ran out.
     *
     * @param recent the recording thread's recent inputs
     * @param stackId the interned stack, or -1 for none
     */
    public static boolean write(Column arena, Recent recent, int slot, OpCall call, boolean shapes, int stackId) {
        long mark = arena.size();
        long seq = call.sequenceNumber();
        long fwd = call.forwardThreadId();
        int inputs = shapes ? Math.min(call.inputCount(), MAX_INPUTS) : 0;
        int n = inputs > 0 ? encode(recent, call, inputs) : 0;
        int entry = call.nameId() & (Recent.ENTRIES - 1);
        long back = inputs > 0 && recent.names[entry] == call.nameId() && recent.counts[entry] == inputs
                && recent.lengths[entry] == n
                && java.util.Arrays.equals(recent.scratch, 0, n, recent.words[entry], 0, n)
                ? mark - recent.at[entry] : 0;
        boolean repeat = back > 0 && back <= MAX_BACK;
        int flags = (seq >= 0 ? SEQUENCE : 0) | (fwd >= 0 ? FORWARD_THREAD : 0) | (stackId >= 0 ? STACK : 0)
                | (shapes ? SHAPES : 0) | (repeat ? REPEAT : 0);
        boolean ok = arena.addLong(head(slot, flags, inputs) | (repeat ? back << 48 : 0));
        if (ok && seq >= 0) {
            ok = arena.addLong(seq);
        }
        if (ok && fwd >= 0) {
            ok = arena.addLong(fwd);
        }
        if (ok && stackId >= 0) {
            ok = arena.addLong(stackId);
        }
        if (repeat || inputs == 0) {
            if (!ok) {
                arena.truncate(mark);
            }
            return ok;
        }
        long inputsAt = arena.size();
        long[] w = recent.scratch;
        for (int i = 0; ok && i < n; i++) {
            ok = arena.addLong(w[i]);
        }
        if (!ok) {
            arena.truncate(mark);
            return false;
        }
        long[] kept = recent.words[entry];
        if (kept == null || kept.length < n) {
            kept = recent.words[entry] = new long[Math.max(n, 8)];
        }
        System.arraycopy(w, 0, kept, 0, n);
        recent.names[entry] = call.nameId();
        recent.counts[entry] = inputs;
        recent.lengths[entry] = n;
        recent.at[entry] = inputsAt;
        return true;
    }

    /** Encodes an event's inputs into the scratch space, narrow where dtype id and dims allow; returns the length. */
    private static int encode(Recent recent, OpCall call, int inputs) {
        long[] w = recent.scratch;
        int n = 0;
        for (int i = 0; i < inputs; i++) {
            int rank = Math.min(call.inputRank(i), MAX_RANK);
            if (n + 1 + rank > w.length) {
                w = recent.scratch = java.util.Arrays.copyOf(w, Math.max(w.length * 2, n + 1 + rank));
            }
            int type = typeId(call.inputType(i));
            int start = n;
            if (type < NARROW_TYPE_LIMIT) {
                long first = rank > 0 ? call.inputDim(i, 0) : 0;
                boolean narrow = (first & ~LOW32) == 0;
                w[n++] = ((long) type << 40) | ((long) rank << 32) | (first & LOW32);
                for (int d = 1; narrow && d < rank; d += 2) {
                    long a = call.inputDim(i, d);
                    long b = d + 1 < rank ? call.inputDim(i, d + 1) : 0;
                    narrow = ((a | b) & ~LOW32) == 0;
                    w[n++] = a | (b << 32);
                }
                if (narrow) {
                    continue;
                }
                n = start;   // a dim needs more than 32 bits: the input is written wide
            }
            w[n++] = WIDE | ((long) rank << 32) | (type & LOW32);
            for (int d = 0; d < rank; d++) {
                w[n++] = call.inputDim(i, d);
            }
        }
        return n;
    }

    /**
     * Appends a memory event's details; returns false, leaving the arena as it was, when memory ran out. The
     * category's index rides in the head's input-count bits, which a memory event does not otherwise use, so it
     * costs no extra long.
     *
     * @param deviceTypeId the device type's name id ({@code cpu}, {@code npu}, ...) in the trace's name table
     */
    public static boolean writeMemory(Column arena, int slot, int deviceTypeId, int deviceIndex, long address,
            long bytes, long totalAllocated, long totalReserved, int category) {
        long mark = arena.size();
        boolean ok = arena.addLong(head(slot, MEMORY, category & 0xFF)) && arena.addLong(deviceTypeId)
                && arena.addLong(deviceIndex) && arena.addLong(address) && arena.addLong(bytes)
                && arena.addLong(totalAllocated) && arena.addLong(totalReserved);
        if (!ok) {
            arena.truncate(mark);
        }
        return ok;
    }

    /**
     * Appends the details a reader found for an event: its autograd links and its inputs' shapes and dtypes (name ids),
     * all written wide; returns false, leaving the arena as it was, when memory ran out.
     *
     * @param sequence the autograd sequence number, or -1
     * @param forwardThread the forward op's thread of a backward op, or -1
     * @param stackId the interned stack, or -1
     * @param shapes the inputs' dims, or null when shapes were not recorded
     * @param typeIds per input, the name id of its dtype ({@code float}, {@code Scalar}, or the empty string's)
     */
    public static boolean write(Column arena, int slot, long sequence, long forwardThread, int stackId,
            long[][] shapes, int[] typeIds) {
        long mark = arena.size();
        int inputs = shapes == null ? 0 : Math.min(shapes.length, MAX_INPUTS);
        int flags = (sequence >= 0 ? SEQUENCE : 0) | (forwardThread >= 0 ? FORWARD_THREAD : 0)
                | (stackId >= 0 ? STACK : 0) | (shapes != null ? SHAPES : 0);
        boolean ok = arena.addLong(head(slot, flags, inputs));
        if (ok && sequence >= 0) {
            ok = arena.addLong(sequence);
        }
        if (ok && forwardThread >= 0) {
            ok = arena.addLong(forwardThread);
        }
        if (ok && stackId >= 0) {
            ok = arena.addLong(stackId);
        }
        for (int i = 0; ok && i < inputs; i++) {
            int rank = Math.min(shapes[i].length, MAX_RANK);
            ok = arena.addLong(WIDE | ((long) rank << 32) | (typeIds[i] & LOW32));
            for (int d = 0; ok && d < rank; d++) {
                ok = arena.addLong(shapes[i][d]);
            }
        }
        if (!ok) {
            arena.truncate(mark);
        }
        return ok;
    }

    /**
     * Reads a memory event's details into {@code out}: device type id, device index, address, bytes, total
     * allocated, total reserved. Returns false if the details at that position are not a memory event's.
     */
    public static boolean readMemory(Column arena, long at, long[] out) {
        if ((flags(arena.getLong(at)) & MEMORY) == 0) {
            return false;
        }
        for (int i = 0; i < 6; i++) {
            out[i] = arena.getLong(at + 1 + i);
        }
        return true;
    }

    /**
     * Returns the category index ({@link MemoryCategory#ordinal()}) of the memory event whose details are at a
     * position, or {@link MemoryCategory#UNKNOWN}'s for details that are not a memory event's.
     */
    public static int memoryCategory(Column arena, long at) {
        long head = arena.getLong(at);
        return (flags(head) & MEMORY) != 0 ? inputs(head) : MemoryCategory.UNKNOWN.ordinal();
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
    public record Read(long sequenceNumber, long forwardThreadId, int stackId, long[][] shapes, String[] types) {
        public static final Read NONE = new Read(-1, -1, -1, new long[0][], new String[0]);
    }

    /** Returns the position after the details at a position, reading only what it must. */
    public static long skip(Column arena, long at) {
        long head = arena.getLong(at);
        int flags = flags(head);
        if ((flags & MEMORY) != 0) {
            return at + 7;
        }
        long p = at + 1 + Integer.bitCount(flags & (SEQUENCE | FORWARD_THREAD | STACK));
        if ((flags & REPEAT) != 0) {
            return p;
        }
        for (int i = inputs(head); i > 0; i--) {
            long word = arena.getLong(p);
            int rank = (int) (word >>> 32) & 0xFF;
            p += 1 + ((word & WIDE) != 0 ? rank : rank / 2);
        }
        return p;
    }

    /**
     * Reads the details at a position, naming dtypes through the trace's name table; returns the position after
     * them through {@code next[0]} when {@code next} is not null.
     */
    public static Read read(Column arena, long at, IntFunction<String> names, long[] next) {
        long head = arena.getLong(at);
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
            seq = arena.getLong(p++);
        }
        if ((flags & FORWARD_THREAD) != 0) {
            fwd = arena.getLong(p++);
        }
        if ((flags & STACK) != 0) {
            stack = (int) arena.getLong(p++);
        }
        long after = p;
        if ((flags & REPEAT) != 0) {
            p = at - (head >>> 48);   // the inputs an earlier entry wrote
        }
        long[][] shapes = new long[inputs][];
        String[] types = new String[inputs];
        for (int i = 0; i < inputs; i++) {
            long word = arena.getLong(p++);
            int rank = (int) (word >>> 32) & 0xFF;
            long[] dims = new long[rank];
            if ((word & WIDE) != 0) {
                types[i] = names.apply((int) (word & LOW32));
                for (int d = 0; d < rank; d++) {
                    dims[d] = arena.getLong(p++);
                }
            } else {
                types[i] = names.apply((int) (word >>> 40) & (NARROW_TYPE_LIMIT - 1));
                if (rank > 0) {
                    dims[0] = word & LOW32;
                }
                for (int d = 1; d < rank; d += 2) {
                    long pair = arena.getLong(p++);
                    dims[d] = pair & LOW32;
                    if (d + 1 < rank) {
                        dims[d + 1] = pair >>> 32;
                    }
                }
            }
            shapes[i] = dims;
        }
        if (next != null) {
            next[0] = (flags & REPEAT) != 0 ? after : p;
        }
        return new Read(seq, fwd, stack, shapes, types);
    }
}
