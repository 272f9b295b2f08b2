package dev.vantage.exporter.contract;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.StepRule;
import dev.vantage.profiler.trace.Trace;
import dev.vantage.profiler.trace.TraceDevice;
import dev.vantage.profiler.trace.TraceThread;
import dev.vantage.trace.engine.DeviceNames;


/**
 * A trace made up by a test, event by event, with every field the cursor has; shared by the exporters' tests
 * through this module's test jar. Parent ids and self times are as given (self defaults to the duration).
 */
public final class FakeTrace implements Trace {

    public static final long START = 1_763_700_000_123_456_789L;

    /** One event; times in nanoseconds after {@link #START}. */
    public record Ev(String name, EventKind kind, long thread, long start, long duration, long id, long correlation,
            String deviceType, int device, long stream, long seq, long fwd, long[][] shapes, String[] types,
            List<String> stack, long memoryBytes, long parent, long self, long address, long flow) {

        public static Ev host(String name, EventKind kind, long thread, long start, long duration, long id) {
            return new Ev(name, kind, thread, start, duration, id, id, "", -1, -1, -1, -1, new long[0][],
                    new String[0], List.of(), 0, -1, duration, 0, -1);
        }

        public Ev withSequence(long s, long f) {
            return new Ev(name, kind, thread, start, duration, id, correlation, deviceType, device, stream, s, f,
                    shapes, types, stack, memoryBytes, parent, self, address, flow);
        }

        public Ev withShapes(long[][] s, String[] t) {
            return new Ev(name, kind, thread, start, duration, id, correlation, deviceType, device, stream, seq,
                    fwd, s, t, stack, memoryBytes, parent, self, address, flow);
        }

        public Ev withStack(List<String> frames) {
            return new Ev(name, kind, thread, start, duration, id, correlation, deviceType, device, stream, seq,
                    fwd, shapes, types, frames, memoryBytes, parent, self, address, flow);
        }

        /** The same event joined by a device runtime correlation id to its launch or launched work. */
        public Ev withFlow(long flowId) {
            return new Ev(name, kind, thread, start, duration, id, correlation, deviceType, device, stream, seq,
                    fwd, shapes, types, stack, memoryBytes, parent, self, address, flowId);
        }

        /** The same event nested in {@code parentId}, with its own self time. */
        public Ev under(long parentId, long selfNanos) {
            return new Ev(name, kind, thread, start, duration, id, correlation, deviceType, device, stream, seq,
                    fwd, shapes, types, stack, memoryBytes, parentId, selfNanos, address, flow);
        }

        public static Ev kernel(String name, String type, int device, long stream, long start, long duration, long id,
                long launchingOp) {
            return new Ev(name, EventKind.KERNEL, -1, start, duration, id, launchingOp, type, device, stream, -1,
                    -1, new long[0][], new String[0], List.of(), 0, -1, 0, 0, -1);
        }

        public static Ev memory(long thread, long start, long id, long bytes) {
            return memory(thread, start, id, bytes, 0x7f00L, -1);
        }

        /** An allocation ({@code bytes > 0}) or free of host memory at an address, made by op {@code parent}. */
        public static Ev memory(long thread, long start, long id, long bytes, long address, long parent) {
            return new Ev("[memory]", EventKind.MEMORY, thread, start, 0, id, id, "cpu", -1, -1, -1, -1,
                    new long[0][], new String[0], List.of(), bytes, parent, 0, address, -1);
        }
    }

    private final List<Ev> events;
    private final List<TraceThread> threads;
    private final List<TraceDevice> devices;
    private final Map<String, String> metadata;

    public FakeTrace(List<Ev> events, List<TraceThread> threads, List<TraceDevice> devices,
            Map<String, String> metadata) {
        this.events = new ArrayList<>(events);
        this.threads = threads;
        this.devices = devices;
        this.metadata = metadata;
    }

    @Override
    public long processId() {
        return 4242;
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
        return START + 10_000_000;
    }

    @Override
    public List<TraceThread> threads() {
        return threads;
    }

    @Override
    public List<TraceDevice> devices() {
        return devices;
    }

    @Override
    public long eventCount() {
        return events.size();
    }

    @Override
    public long droppedEvents() {
        return 0;
    }

    @Override
    public Map<String, String> metadata() {
        return metadata;
    }

    @Override
    public EventCursor events() {
        Iterator<Ev> it = events.iterator();
        return new EventCursor() {
            private Ev e;
            /** The steps' rule, read on first use (reading the steps reads the events with a cursor of its own). */
            private StepRule rule;

            @Override
            public int stepIndex() {
                if (rule == null) {
                    rule = StepRule.of(steps());
                }
                return rule.indexOf(startEpochNanos(), e.kind().isDeviceWork() ? launchEpochNanos() : -1);
            }

            @Override
            public boolean isCommunication() {
                return e.kind().isDeviceWork() && DeviceNames.isCommunicationKernel(e.name());
            }

            @Override
            public boolean next() {
                e = it.hasNext() ? it.next() : null;
                return e != null;
            }

            @Override
            public String name() {
                return e.name();
            }

            @Override
            public EventKind kind() {
                return e.kind();
            }

            @Override
            public long threadId() {
                return e.thread();
            }

            @Override
            public long startEpochNanos() {
                return START + e.start();
            }

            @Override
            public long durationNanos() {
                return e.duration();
            }

            @Override
            public long eventId() {
                return e.id();
            }

            @Override
            public long parentId() {
                return e.parent();
            }

            @Override
            public long selfDurationNanos() {
                return e.kind().isDeviceWork() ? 0 : e.self();
            }

            @Override
            public long flowId() {
                return e.flow();
            }

            @Override
            public long launchEpochNanos() {
                if (!e.kind().isDeviceWork()) {
                    return -1;
                }
                for (Ev op : events) {
                    if (op.id() == e.correlation() && !op.kind().isDeviceWork()) {
                        return START + op.start();
                    }
                }
                return -1;
            }

            @Override
            public long correlationId() {
                return e.correlation();
            }

            @Override
            public String deviceType() {
                return e.deviceType();
            }

            @Override
            public int deviceIndex() {
                return e.device();
            }

            @Override
            public long streamId() {
                return e.stream();
            }

            @Override
            public long sequenceNumber() {
                return e.seq();
            }

            @Override
            public long forwardThreadId() {
                return e.fwd();
            }

            @Override
            public int inputCount() {
                return e.shapes().length;
            }

            @Override
            public long[] inputShape(int index) {
                return e.shapes()[index].clone();
            }

            @Override
            public String inputType(int index) {
                return e.types()[index];
            }

            @Override
            public List<String> stack() {
                return e.stack();
            }

            @Override
            public long memoryBytes() {
                return e.memoryBytes();
            }

            @Override
            public long memoryAddress() {
                return e.kind() == EventKind.MEMORY ? e.address() : 0;
            }

            @Override
            public long memoryTotalAllocated() {
                return e.kind() == EventKind.MEMORY ? 8192 + e.memoryBytes() : 0;
            }

            @Override
            public long memoryTotalReserved() {
                return e.kind() == EventKind.MEMORY ? 2097152 : 0;
            }
        };
    }
}
