package dev.vantage.profiler.core.internal;

import java.lang.StackWalker.StackFrame;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import dev.vantage.profiler.dispatch.Dispatch;

/**
 * The calling Java frames of ops, captured with a {@link StackWalker} and interned so that an event stores one
 * int. Only the caller's frames are kept: frames {@link Dispatch#isHiddenFrame} names (the JDK, the OSGi
 * framework, the profiler and the dispatch machinery runtimes declare) are skipped, and at most
 * {@link #MAX_FRAMES} remain. Thread-safe.
 */
final class StackTable {

    static final int MAX_FRAMES = 16;
    private static final StackWalker WALKER = StackWalker.getInstance();

    private final Map<List<String>, Integer> ids = new ConcurrentHashMap<>();
    private final List<List<String>> stacks = new ArrayList<>();

    /** Captures the current thread's calling frames, innermost first, and returns their id. */
    int capture() {
        List<String> frames = WALKER.walk(s -> s.filter(StackTable::isCallerFrame).limit(MAX_FRAMES)
                .map(StackTable::format).collect(Collectors.toList()));
        Integer id = ids.get(frames);
        return id != null ? id : add(frames);
    }

    private synchronized int add(List<String> frames) {
        Integer existing = ids.get(frames);
        if (existing != null) {
            return existing;
        }
        List<String> copy = List.copyOf(frames);
        stacks.add(copy);
        ids.put(copy, stacks.size() - 1);
        return stacks.size() - 1;
    }

    /** Returns the frames of an id, innermost first. */
    synchronized List<String> frames(int id) {
        return id < 0 || id >= stacks.size() ? List.of() : stacks.get(id);
    }

    static boolean isCallerFrame(StackFrame f) {
        return !Dispatch.isHiddenFrame(f.getClassName());
    }

    /** {@code package.Class.method(File.java:42)}, as Java prints stack traces. */
    static String format(StackFrame f) {
        String file = f.getFileName();
        int line = f.getLineNumber();
        return f.getClassName() + "." + f.getMethodName() + "(" + (file == null ? "Unknown Source"
                : line >= 0 ? file + ":" + line : file) + ")";
    }
}
