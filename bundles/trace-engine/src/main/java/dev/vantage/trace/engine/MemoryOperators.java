package dev.vantage.trace.engine;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;

/**
 * Which operator a {@code [memory]} event belongs to, as the TensorBoard plugin's memory parser decides it: the
 * innermost operator enclosing the event on its thread, an operator ending at the event's time no longer enclosing
 * it. Annotations between the two are looked through (the plugin's call tree holds none). An event whose innermost
 * operator is one the plugin does not count as an operator (the DataLoader's {@code __next__}, {@code Optimizer.*},
 * {@code DataParallel.forward}, {@code DistributedDataParallel.forward}), or that no operator encloses (inside a step
 * only, or nothing), belongs to none. Each event also gives its bytes to every counted operator enclosing it (the
 * plugin's figures "with children").
 *
 * <p>Fed the engine's cursor in its order: each thread's events in start order, a parent before its children; it
 * keeps one stack of the open events of the thread being read. A device's own memory report (one the engine ties to
 * the op that launched the work) has no enclosing event on the stack: its op is looked up by id afterwards
 * ({@link #deferred()}).
 */
final class MemoryOperators {

    /** The operator of an event: its name, the name of the operator or step around it, and its ancestors' names. */
    record Attribution(String op, String parent, List<String> enclosing) {
    }

    /** An open event; merged when it is an op whose parent is an op of its name (the plugin keeps one node). */
    private record Open(long id, long endNanos, boolean op, String name, String step, boolean merged) {
    }

    private static final List<String> EXCLUDED = List.of("DataParallel.forward", "DistributedDataParallel.forward");

    private final Map<Long, String> stepNames = new HashMap<>();
    private final Map<String, Long> calls = new HashMap<>();
    private final List<Open> stack = new ArrayList<>();
    private long thread = Long.MIN_VALUE;

    /** True for an operator the plugin counts: not the DataLoader, an optimizer or a data-parallel wrapper. */
    static boolean counted(String name) {
        return !(name.startsWith("enumerate(DataLoader)#") && name.endsWith(".__next__")
                || name.startsWith("enumerate(DataPipe)#") || name.startsWith("Optimizer.")
                || EXCLUDED.contains(name));
    }

    /** Takes a step, or a host event that is no memory event, at the cursor. */
    void open(EventCursor c) {
        if (c.isStep()) {
            stepNames.put(c.eventId(), c.name());
            return;
        }
        if (c.threadId() != thread) {
            thread = c.threadId();
            stack.clear();
        }
        long parent = c.parentId();
        popTo(parent);
        boolean op = c.kind() == EventKind.CPU_OP;
        String name = c.name();
        // torch's tree, as the plugin builds it, merges an op into a parent of its name: one call, one node
        boolean merged = op && !stack.isEmpty() && stack.get(stack.size() - 1).op
                && stack.get(stack.size() - 1).name.equals(name);
        if (op && !merged) {
            calls.merge(name, 1L, Long::sum);
        }
        stack.add(new Open(c.eventId(), c.startEpochNanos() + c.durationNanos(), op, name,
                stack.isEmpty() ? stepNames.get(parent) : null, merged));
    }

    /**
     * The operator of the memory event at the cursor, or null when it belongs to none; {@link #DEFERRED} when its
     * parent is not an open event of its thread (a device's report), to be looked up by id.
     */
    Attribution attribute(EventCursor c) {
        long parent = c.parentId();
        if (c.threadId() != thread || !popTo(parent)) {
            return stepNames.containsKey(parent) || parent < 0 ? null : DEFERRED;
        }
        long at = c.startEpochNanos();
        int top = stack.size() - 1;
        while (top >= 0 && stack.get(top).endNanos <= at) {
            top--;
        }
        int innermost = top;
        while (innermost >= 0 && !stack.get(innermost).op) {
            innermost--;
        }
        if (innermost < 0 || !counted(stack.get(innermost).name)) {
            return null;
        }
        String around = null;
        List<String> enclosing = new ArrayList<>();
        boolean same = stack.get(innermost).merged;
        for (int i = innermost - 1; i >= 0; i--) {
            Open o = stack.get(i);
            if (o.op && !same) {
                around = around == null ? o.name : around;
                if (counted(o.name)) {
                    enclosing.add(o.name);
                }
            }
            same = o.op ? o.merged : same;
        }
        if (around == null) {
            around = stack.get(0).step;
        }
        return new Attribution(stack.get(innermost).name, around, enclosing);
    }

    /** Returned by {@link #attribute} for an event whose op is looked up by id. */
    static final Attribution DEFERRED = new Attribution(null, null, List.of());

    /** How often each operator name was called, on every thread. */
    Map<String, Long> calls() {
        return calls;
    }

    /** Pops the stack down to the event of an id; false (and an empty stack) when it is not there. */
    private boolean popTo(long id) {
        while (!stack.isEmpty() && stack.get(stack.size() - 1).id != id) {
            stack.remove(stack.size() - 1);
        }
        return !stack.isEmpty();
    }
}
