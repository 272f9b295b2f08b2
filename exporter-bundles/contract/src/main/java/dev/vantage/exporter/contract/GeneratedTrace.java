package dev.vantage.exporter.contract;

import java.util.List;
import java.util.Map;
import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.Trace;
import dev.vantage.profiler.trace.TraceDevice;
import dev.vantage.profiler.trace.TraceThread;

/**
 * A trace of any length whose events are computed as the cursor reaches them, so that exporting it needs no
 * memory per event beyond what the exporter keeps. No event has a parent, a stack or autograd links: the cursor's
 * defaults say so. Every tenth event is a kernel, every fiftieth an allocation,
 * the rest host ops and annotations on four threads; names repeat from a small set that includes hostile ones.
 */
public final class GeneratedTrace implements Trace {

    public static final long START = FakeTrace.START;
    private static final String[] NAMES = {"aten::mm", "aten::add", "layer \"1\", part\\2", "naïve\top\n"};

    private final long events;

    public GeneratedTrace(long events) {
        this.events = events;
    }

    @Override
    public long processId() {
        return 77;
    }

    @Override
    public String processName() {
        return "java";
    }

    @Override
    public long startEpochNanos() {
        return START;
    }

    @Override
    public long endEpochNanos() {
        return START + events * 1_000 + 1_000;
    }

    @Override
    public List<TraceThread> threads() {
        return List.of(new TraceThread(1, "t1", 0), new TraceThread(2, "t2", 0), new TraceThread(3, "t3", 0),
                new TraceThread(4, "t4", 0));
    }

    @Override
    public List<TraceDevice> devices() {
        return List.of(new TraceDevice("npu", 0, true, Map.of("name", "Generated NPU")));
    }

    @Override
    public long eventCount() {
        return events;
    }

    @Override
    public long droppedEvents() {
        return 0;
    }

    @Override
    public Map<String, String> metadata() {
        return Map.of("profile_memory", "1");
    }

    @Override
    public EventCursor events() {
        return new EventCursor() {
            private long i = -1;

            private EventKind kindOf(long n) {
                return n % 10 == 9 ? EventKind.KERNEL : n % 50 == 25 ? EventKind.MEMORY
                        : n % 7 == 3 ? EventKind.USER_ANNOTATION : EventKind.CPU_OP;
            }

            @Override
            public boolean next() {
                return ++i < events;
            }

            @Override
            public String name() {
                return kindOf(i) == EventKind.MEMORY ? "[memory]" : NAMES[(int) (i % NAMES.length)];
            }

            @Override
            public EventKind kind() {
                return kindOf(i);
            }

            @Override
            public long threadId() {
                return 1 + i % 4;
            }

            @Override
            public long startEpochNanos() {
                return START + i * 1_000;
            }

            @Override
            public long durationNanos() {
                return kindOf(i) == EventKind.MEMORY ? 0 : 800;
            }

            @Override
            public long eventId() {
                return i + 1;
            }





            @Override
            public long correlationId() {
                return kindOf(i).isDeviceWork() ? i : i + 1;
            }

            @Override
            public String deviceType() {
                EventKind k = kindOf(i);
                return k.isDeviceWork() ? "npu" : k == EventKind.MEMORY ? "cpu" : "";
            }

            @Override
            public int deviceIndex() {
                return kindOf(i).isDeviceWork() ? 0 : -1;
            }

            @Override
            public long streamId() {
                return kindOf(i).isDeviceWork() ? i % 4 : -1;
            }



            @Override
            public int inputCount() {
                return kindOf(i) == EventKind.CPU_OP && i % 3 == 0 ? 2 : 0;
            }

            @Override
            public long[] inputShape(int index) {
                return new long[] {8, 16 + index};
            }

            @Override
            public String inputType(int index) {
                return "float";
            }



            @Override
            public long memoryBytes() {
                return kindOf(i) == EventKind.MEMORY ? ((i / 50) % 2 == 0 ? 4096 : -4096) : 0;
            }

            @Override
            public long memoryAddress() {
                return kindOf(i) == EventKind.MEMORY ? 0x1000 + (i / 100) * 64 : 0;
            }

            @Override
            public long memoryTotalAllocated() {
                return kindOf(i) == EventKind.MEMORY ? 1 << 20 : 0;
            }

            @Override
            public long memoryTotalReserved() {
                return kindOf(i) == EventKind.MEMORY ? 2 << 20 : 0;
            }
        };
    }
}
