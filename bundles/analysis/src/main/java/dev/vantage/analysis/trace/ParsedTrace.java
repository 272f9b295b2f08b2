package dev.vantage.analysis.trace;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What {@link TraceReader} keeps of a trace while it reads it: columns, steps, memory and facts. */
final class ParsedTrace {

    /** One {@code ProfilerStep#N}; times relative to the base time. */
    record Step(long number, long start, long duration, String thread) {
    }

    /** The {@code [memory]} events of one device: time, total allocated and reserved. */
    static final class Memory {
        final LongList time = new LongList();
        final LongList allocated = new LongList();
        final LongList reserved = new LongList();

        void add(long t, long a, long r) {
            time.add(t);
            allocated.add(a);
            reserved.add(r);
        }
    }

    final EventArgs args = new EventArgs();
    final Map<String, EventColumns> threads = new LinkedHashMap<>();
    final EventColumns device = new EventColumns();
    final List<Step> steps = new ArrayList<>();
    /** By c10 device type number and device index. */
    final Map<List<Integer>, Memory> memory = new LinkedHashMap<>();
    final List<String> deviceTypes = new ArrayList<>();
    final List<String> names = new ArrayList<>();
    final List<String> shapes = new ArrayList<>();
    private final Map<String, Integer> nameIds = new HashMap<>();
    private final Map<String, Integer> shapeIds = new HashMap<>();
    boolean sawEvents;
    long baseNanos;
    int rank = -1;
    int worldSize = 1;
    long events;

    EventColumns thread(String key) {
        return threads.computeIfAbsent(key, k -> new EventColumns());
    }

    Memory memory(int deviceType, int deviceId) {
        return memory.computeIfAbsent(List.of(deviceType, deviceId), k -> new Memory());
    }

    void step(String name, long start, long duration, String thread) {
        String number = name.substring("ProfilerStep#".length());
        if (number.matches("\\d{1,18}")) {
            steps.add(new Step(Long.parseLong(number), start, duration, thread));
        }
    }

    int name(String name) {
        return intern(name, names, nameIds);
    }

    int shapes(String text) {
        return intern(text, shapes, shapeIds);
    }

    private static int intern(String value, List<String> values, Map<String, Integer> ids) {
        Integer id = ids.get(value);
        if (id == null) {
            id = values.size();
            values.add(value);
            ids.put(value, id);
        }
        return id;
    }
}
