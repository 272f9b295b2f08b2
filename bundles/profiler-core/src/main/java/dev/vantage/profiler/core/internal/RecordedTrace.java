package dev.vantage.profiler.core.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.vantage.profiler.spi.DeviceActivity;
import dev.vantage.profiler.memory.MemoryCategory;
import dev.vantage.profiler.dispatch.OpNames;
import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.StepRule;
import dev.vantage.profiler.trace.Trace;
import dev.vantage.profiler.trace.TraceDevice;
import dev.vantage.profiler.trace.TraceStep;
import dev.vantage.profiler.trace.TraceThread;

/**
 * A completed cycle as the immutable trace model exporters read. Cursors read the recorded rows directly, step
 * annotations first, then each thread's events, then device work. Timestamps are converted from
 * {@code System.nanoTime()} to epoch nanoseconds with one offset, taken when the profile started.
 */
final class RecordedTrace implements Trace {

    private final Analysis a;
    private final long offset;
    private final Map<String, String> metadata;
    private final List<TraceThread> threads;
    private final boolean exposeShapes;

    RecordedTrace(Analysis analysis) {
        this.a = analysis;
        this.offset = analysis.cycle.epochOffsetNanos();
        this.exposeShapes = analysis.cycle.options().recordShapes();
        List<TraceThread> list = new ArrayList<>();
        for (ThreadBuffer.Snapshot s : analysis.cycle.threads()) {
            list.add(new TraceThread(s.threadId(), s.threadName(), s.dropped()));
        }
        this.threads = List.copyOf(list);
        Map<String, String> all = new TreeMap<>(analysis.cycle.metadata());
        all.put("vantage.dropped_events", Long.toString(analysis.droppedHost));
        // and per thread, as the table's footer and the command line promise: which thread hit the cap
        for (TraceThread t : list) {
            if (t.droppedEvents() > 0) {
                all.put("vantage.dropped_events.thread." + t.id(), t.droppedEvents() + " (" + t.name() + ")");
            }
        }
        if (analysis.droppedDevice > 0) {
            all.put("vantage.dropped_device_records", Long.toString(analysis.droppedDevice));
        }
        this.metadata = Collections.unmodifiableMap(all);
    }

    @Override
    public long processId() {
        return ProcessHandle.current().pid();
    }

    @Override
    public String processName() {
        return a.cycle.processName();
    }

    @Override
    public long startEpochNanos() {
        return a.cycle.startNanos() + offset;
    }

    @Override
    public long endEpochNanos() {
        return a.cycle.stopNanos() + offset;
    }

    @Override
    public List<TraceThread> threads() {
        return threads;
    }

    @Override
    public List<TraceDevice> devices() {
        return a.devices;
    }

    @Override
    public long eventCount() {
        return a.eventCount;
    }

    @Override
    public long droppedEvents() {
        return a.droppedHost + a.droppedDevice;
    }

    @Override
    public Map<String, String> metadata() {
        return metadata;
    }

    @Override
    public EventCursor events() {
        return new Cursor();
    }

    private List<TraceStep> steps;

    /** The recorded step spans, with the device work {@link StepRule} attributes to each; computed once. */
    @Override
    public synchronized List<TraceStep> steps() {
        if (steps == null) {
            List<TraceStep> spans = new ArrayList<>();
            for (Cycle.StepSpan s : a.steps) {
                spans.add(new TraceStep(s.step(), s.startNanos() + offset, s.endNanos() + offset,
                        s.startNanos() + offset));
            }
            StepRule rule = StepRule.of(spans);
            for (int i = 0; i < a.activities.size() && rule.size() > 0; i++) {
                DeviceActivity act = a.activities.get(i);
                if (act.kind().isDeviceWork()) {
                    long launch = a.activityOpStart[i];
                    rule.attribute(act.startNanos() + offset, launch < 0 ? -1 : launch + offset,
                            act.endNanos() + offset);
                }
            }
            steps = rule.steps();
        }
        return steps;
    }

    /** Walks three sections in turn: step annotations, thread events, device work. */
    private final class Cursor implements EventCursor {
        private int section;
        private int thread;
        private int index = -1;
        private ThreadBuffer.Snapshot current;
        private Details.Read details;
        private final long[] memory = new long[6];
        private boolean memoryRead;
        private boolean isMemory;

        @Override
        public boolean next() {
            details = null;
            memoryRead = false;
            if (section == 0) {
                if (index + 1 < a.steps.size()) {
                    index++;
                    return true;
                }
                section = 1;
                thread = 0;
                index = -1;
            }
            if (section == 1) {
                while (thread < a.cycle.threads().size()) {
                    current = a.cycle.threads().get(thread);
                    if (index + 1 < current.size()) {
                        index++;
                        return true;
                    }
                    thread++;
                    index = -1;
                }
                section = 2;
                index = -1;
                current = null;
            }
            if (index + 1 < a.activities.size()) {
                index++;
                return true;
            }
            return false;
        }

        private Cycle.StepSpan step() {
            return a.steps.get(index);
        }

        private DeviceActivity activity() {
            return a.activities.get(index);
        }

        private Details.Read details() {
            if (details == null) {
                details = section == 1 ? a.details(thread, index) : Details.Read.NONE;
            }
            return details;
        }

        @Override
        public String name() {
            return switch (section) {
                case 0 -> step().name();
                case 1 -> OpNames.name(current.name(index));
                default -> activity().name();
            };
        }

        @Override
        public EventKind kind() {
            return switch (section) {
                case 0 -> EventKind.USER_ANNOTATION;
                case 1 -> EventKind.ofId(current.kind(index));
                default -> activity().kind();
            };
        }

        @Override
        public long threadId() {
            return switch (section) {
                case 0 -> step().threadId();
                case 1 -> current.threadId();
                default -> activity().launchThreadId();
            };
        }

        @Override
        public long startEpochNanos() {
            return offset + switch (section) {
                case 0 -> step().startNanos();
                case 1 -> current.start(index);
                default -> activity().startNanos();
            };
        }

        @Override
        public long durationNanos() {
            return switch (section) {
                case 0 -> step().endNanos() - step().startNanos();
                case 1 -> a.end(current, index) - current.start(index);
                default -> activity().endNanos() - activity().startNanos();
            };
        }

        @Override
        public long eventId() {
            return switch (section) {
                case 0 -> index + 1;
                case 1 -> a.firstId[thread] + index;
                default -> a.deviceFirstId + index;
            };
        }

        /** Reads the current memory event's fields once; false for other events. */
        private boolean memory() {
            if (!memoryRead) {
                memoryRead = true;
                Column at = section == 1 ? a.detailsAt[thread] : null;
                isMemory = section == 1 && Analysis.isMemory(current.kind(index)) && at != null
                        && at.get(index) >= 0 && Details.readMemory(current.extras(), at.get(index), memory);
            }
            return isMemory;
        }

        @Override
        public long memoryBytes() {
            return memory() ? memory[3] : 0;
        }

        @Override
        public long memoryAddress() {
            return memory() ? memory[2] : 0;
        }

        @Override
        public long memoryTotalAllocated() {
            return memory() ? memory[4] : 0;
        }

        @Override
        public long memoryTotalReserved() {
            return memory() ? memory[5] : 0;
        }

        @Override
        public String memoryCategory() {
            if (!memory()) {
                return "";
            }
            int category = Details.memoryCategory(current.extras(), a.detailsAt[thread].get(index));
            return MemoryCategory.ofIndex(category).torchName();
        }

        @Override
        public long parentId() {
            return section == 1 ? a.parentId(thread, a.parent[thread].getInt(index)) : -1;
        }

        @Override
        public long selfDurationNanos() {
            return switch (section) {
                case 0 -> a.stepSelfNanos[index];
                case 1 -> a.selfNanos[thread].get(index);
                default -> activity().kind().isDeviceWork() ? 0 : durationNanos();
            };
        }

        @Override
        public long deviceSelfNanos() {
            return switch (section) {
                case 0 -> 0;
                case 1 -> a.selfDevice == null ? 0 : a.selfDevice[thread][index];
                default -> activity().kind().isDeviceWork() ? durationNanos() : 0;
            };
        }

        @Override
        public long deviceTotalNanos() {
            return switch (section) {
                case 0 -> a.stepDeviceNanos[index];
                case 1 -> a.totalDevice == null ? 0 : a.totalDevice[thread][index];
                default -> activity().kind().isDeviceWork() ? durationNanos() : 0;
            };
        }

        @Override
        public long correlationId() {
            return section == 2 ? a.activityOp[index] : eventId();
        }

        @Override
        public long launchEpochNanos() {
            long launch = section == 2 && activity().kind().isDeviceWork() ? a.activityOpStart[index] : -1;
            return launch < 0 ? -1 : launch + offset;
        }

        @Override
        public long flowId() {
            // an arrow needs both ends: a launch that launched nothing in this cycle, or work whose launch is
            // missing, carries no flow
            return section == 2 && a.pairedFlow.get(index) ? activity().flowId() : -1;
        }

        @Override
        public Map<String, String> args() {
            if (section == 1) {
                // most cycles carry no host arguments: no boxed key per event then
                Map<Long, Map<String, String>> hostArgs = a.cycle.hostArgs();
                Map<String, String> args = hostArgs.isEmpty() ? null
                        : hostArgs.get(((long) current.index() << ThreadBuffer.SLOT_BITS) | index);
                return args == null ? Map.of() : args;
            }
            return section == 2 ? activity().args() : Map.of();
        }

        @Override
        public String deviceType() {
            if (memory()) {
                return OpNames.name((int) memory[0]);
            }
            return section == 2 ? a.activityDeviceType.get(index) : "";
        }

        @Override
        public int deviceIndex() {
            if (memory()) {
                return (int) memory[1];
            }
            return section == 2 && activity().kind().isDeviceWork() ? activity().deviceIndex() : -1;
        }

        @Override
        public long streamId() {
            return section == 2 && activity().kind().isDeviceWork() ? activity().streamId() : -1;
        }

        @Override
        public long sequenceNumber() {
            return memory() ? -1 : details().sequenceNumber();
        }

        @Override
        public long forwardThreadId() {
            return memory() ? -1 : details().forwardThreadId();
        }

        @Override
        public int inputCount() {
            return exposeShapes ? details().shapes().length : 0;
        }

        @Override
        public long[] inputShape(int i) {
            return details().shapes()[i].clone();
        }

        @Override
        public String inputType(int i) {
            return details().types()[i];
        }

        @Override
        public List<String> stack() {
            StackTable stacks = a.cycle.stacks();
            int id = details().stackId();
            return stacks == null || id < 0 ? List.of() : stacks.frames(id);
        }

        @Override
        public long flops() {
            return section == 1 && a.flops != null ? a.flops[thread][index] : 0;
        }
    }
}
