package dev.vantage.profiler.core.internal;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.api.ProfileOptions;
import dev.vantage.profiler.dispatch.OpNames;
import dev.vantage.profiler.spi.DeviceActivities;
import dev.vantage.profiler.spi.DeviceActivity;
import dev.vantage.trace.engine.DeviceRows;
import dev.vantage.trace.engine.TraceData;
import dev.vantage.trace.engine.store.BlockSource;
import dev.vantage.profiler.core.internal.Recorder.ThreadBuffer;

/**
 * One recording window of a profile, frozen when it stopped: the threads' buffers, the step annotations, what
 * device sessions delivered and the metadata. Nothing here is processed: the trace engine derives the rest from
 * {@link #traceData()}.
 *
 * @param number the cycle number, from 1 (0 until the cycle is delivered)
 * @param options the profile's options
 * @param threads each recording thread's events
 * @param steps the {@code ProfilerStep#N} spans recorded in this window
 * @param stepStarts the {@code nanoTime} at which each step began, indexed by step number
 * @param startNanos start of the window, {@code nanoTime}
 * @param stopNanos end of the window, {@code nanoTime}
 * @param epochOffsetNanos add to a {@code nanoTime} value to get nanoseconds since the Unix epoch
 * @param devices what each device session delivered
 * @param metadata settings, warnings and counts for the trace
 * @param processName the process name for the trace
 * @param stacks the interned stacks, or null when stacks were not recorded
 * @param recategorized the blocks the runtime re-categorised during the window, in report order
 * @param preexisting the blocks that were live when the window began, with their categories
 * @param hostArgs the arguments of the host events that carry some, by event handle
 */
record Cycle(int number, ProfileOptions options, List<ThreadBuffer.Snapshot> threads, List<StepSpan> steps,
        long[] stepStarts, long startNanos, long stopNanos, long epochOffsetNanos, List<DeviceActivities> devices,
        Map<String, String> metadata, String processName, StackTable stacks,
        List<Recategorized> recategorized, List<LiveBlocks.Block> preexisting,
        Map<Long, Map<String, String>> hostArgs) {

    /** Returns this window as delivered cycle {@code n}, with its number in the metadata. */
    Cycle numbered(int n) {
        Map<String, String> m = new TreeMap<>(metadata);
        m.put("vantage.cycle", Integer.toString(n));
        return new Cycle(n, options, threads, steps, stepStarts, startNanos, stopNanos, epochOffsetNanos, devices,
                Collections.unmodifiableMap(m), processName, stacks, recategorized, preexisting, hostArgs);
    }

    /**
     * Returns the window as the trace engine takes it: the threads' frozen rows as they are, the steps, and what the
     * device sessions delivered, each activity with the handle of the op that launched it.
     */
    TraceData traceData() {
        TraceData.Builder b = TraceData.builder()
                .process(processName, ProcessHandle.current().pid())
                .window(startNanos, stopNanos, epochOffsetNanos)
                .names(OpNames::name)
                .stepStarts(stepStarts)
                .metadata(metadata)
                .hostArgs(hostArgs)
                .recordShapes(options.recordShapes())
                .withFlops(options.withFlops())
                .memoryProfiled(options.activities().contains(Activity.MEM));
        for (ThreadBuffer.Snapshot s : threads) {
            b.thread(s.hostThread());
        }
        for (StepSpan s : steps) {
            b.step(new dev.vantage.trace.engine.StepSpan(s.step(), s.threadId(), s.startNanos(), s.endNanos()));
        }
        DeviceRows rows = new DeviceRows(BlockSource.HEAP);
        for (DeviceActivities d : devices) {
            String type = d.devices().isEmpty() ? "" : d.devices().get(0).type();
            for (DeviceActivity a : d.activities()) {
                rows.add(a, type);
            }
            d.devices().forEach(b::deviceInfo);
            b.droppedDeviceRecords(d.droppedRecords());
        }
        b.device(rows);
        if (stacks != null) {
            b.stacks(stacks::frames);
        }
        return b.build();
    }

    /**
     * One {@code ProfilerStep#N} annotation.
     *
     * @param step the step number N
     * @param threadId the thread that ran the step
     * @param startNanos start, {@code nanoTime}
     * @param endNanos end, {@code nanoTime}
     */
    record StepSpan(long step, long threadId, long startNanos, long endNanos) {
        String name() {
            return "ProfilerStep#" + step;
        }
    }
}
