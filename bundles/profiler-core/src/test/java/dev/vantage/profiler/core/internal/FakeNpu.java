package dev.vantage.profiler.core.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.spi.ActivitySession;
import dev.vantage.profiler.spi.DeviceActivities;
import dev.vantage.profiler.spi.DeviceActivity;
import dev.vantage.profiler.spi.DeviceActivitySource;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.TraceDevice;

/**
 * A device source as a vendor bundle writes one: its session remembers the correlation pushed by the core and
 * stamps it on the kernels launched under it. Launches are recorded synchronously, on stream 3 of device 0.
 */
final class FakeNpu implements DeviceActivitySource {

    String mode = "normal";
    Session session;
    int configured;

    @Override
    public Activity activity() {
        return Activity.NPU;
    }

    @Override
    public String deviceType() {
        return "npu";
    }

    @Override
    public ActivitySession configure(Set<Activity> requested, Map<String, String> config) {
        configured++;
        if (mode.equals("declines")) {
            return null;
        }
        if (mode.equals("throws")) {
            throw new IllegalStateException("driver not loaded");
        }
        session = new Session();
        return session;
    }

    /** Launches a kernel of a given length from the calling thread. */
    void launch(String kernel, long nanos) {
        session.launch(kernel, nanos);
    }

    static final class Session implements ActivitySession {
        private final ThreadLocal<Deque<Long>> correlation = ThreadLocal.withInitial(ArrayDeque::new);
        private final List<DeviceActivity> activities = new ArrayList<>();
        boolean started;
        boolean stopped;

        @Override
        public void start() {
            started = true;
        }

        @Override
        public void stop() {
            stopped = true;
        }

        @Override
        public void pushCorrelation(long value) {
            correlation.get().push(value);
        }

        @Override
        public void popCorrelation() {
            correlation.get().pop();
        }

        synchronized void launch(String kernel, long nanos) {
            Long c = correlation.get().peek();
            long start = System.nanoTime() + 100;
            // the runtime's own correlation id, as a driver numbers its launches: 1000 + launch number
            activities.add(new DeviceActivity(kernel, EventKind.KERNEL, 0, 3, start, start + nanos,
                    c == null ? -1 : c, Thread.currentThread().getId(), 1000 + activities.size()));
        }

        /** Records a runtime call on the calling thread between two host times, under the pushed correlation. */
        synchronized void runtime(String name, long start, long end) {
            Long c = correlation.get().peek();
            activities.add(new DeviceActivity(name, EventKind.RUNTIME, 0, 3, start, end, c == null ? -1 : c,
                    Thread.currentThread().getId(), 2000 + activities.size()));
        }

        /**
         * Launches a kernel as a driver does: a runtime call on the calling thread and the kernel, sharing the
         * driver's correlation id (3000 + launch number), under the pushed correlation.
         */
        synchronized void launchWithRuntimeCall(String kernel, long nanos) {
            Long c = correlation.get().peek();
            long flow = 3000 + activities.size();
            long start = System.nanoTime();
            activities.add(new DeviceActivity("aclrtLaunchKernel", EventKind.RUNTIME, 0, 3, start, start + 50,
                    c == null ? -1 : c, Thread.currentThread().getId(), flow));
            activities.add(new DeviceActivity(kernel, EventKind.KERNEL, 0, 3, start + 100, start + 100 + nanos,
                    c == null ? -1 : c, Thread.currentThread().getId(), flow));
        }

        @Override
        public synchronized DeviceActivities collect() {
            return new DeviceActivities(List.of(new TraceDevice("npu", 0, true, Map.of("name", "Fake NPU"))),
                    activities, Map.of("emulated", "true"), List.of(), 2);
        }
    }
}
