package dev.vantage.trace.engine;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.vantage.profiler.api.KeyAverages;
import dev.vantage.profiler.api.ProfilerEvent;
import dev.vantage.profiler.memory.MemoryCategory;
import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.StepRule;
import dev.vantage.profiler.trace.Trace;
import dev.vantage.profiler.trace.TraceDevice;
import dev.vantage.profiler.trace.TraceStep;
import dev.vantage.profiler.trace.TraceThread;
import dev.vantage.trace.engine.store.BlockSource;
import dev.vantage.trace.engine.store.Column;
import dev.vantage.trace.engine.store.Details;
import dev.vantage.trace.engine.store.HostRows;
import dev.vantage.trace.engine.summary.TraceSummary;

/**
 * A trace after the engine analysed it: the trace model every exporter writes, the key averages and table a profile
 * shows, the event list, and the summaries the analysis verbs show, all from one {@link Analysis}. A recorded window
 * and a file read back give the same answers by the same code. Cursors read the rows directly: step spans first,
 * then each thread's events, then device activities; each event carries its step ({@link StepRule}, computed once)
 * and whether it is communication ({@link DeviceNames}). Times are turned into epoch nanoseconds with the trace's one
 * offset.
 *
 * <p>Thread-safe once built: every cursor is new, and what is computed lazily is computed once under this object's
 * lock.
 */
public final class AnalysedTrace implements Trace, AutoCloseable {

    final Analysis a;
    private final BlockSource columns;
    private final long offset;
    private final Map<String, String> metadata;
    private final List<TraceThread> threads;
    private final boolean exposeShapes;
    private volatile List<TraceStep> steps;
    private StepRule rule;
    private List<ProfilerEvent> events;

    /**
     * Analyses a trace's raw material.
     *
     * @param columns where the derived per-event columns go: {@link BlockSource#DIRECT} for a recorded window, a
     *     {@link dev.vantage.trace.engine.store.SpillFile} for a file
     */
    public AnalysedTrace(TraceData data, BlockSource columns) {
        this.a = new Analysis(data, columns);
        this.columns = columns;
        this.offset = data.epochOffsetNanos();
        this.exposeShapes = data.recordShapes();
        List<TraceThread> list = new ArrayList<>();
        for (HostThread h : data.threads()) {
            list.add(new TraceThread(h.threadId(), h.name(), h.droppedEvents()));
        }
        this.threads = List.copyOf(list);
        Map<String, String> all = new TreeMap<>(data.metadata());
        all.put("vantage.dropped_events", Long.toString(a.droppedHost));
        // and per thread, as the table's footer and the command line promise: which thread hit the cap
        for (TraceThread t : list) {
            if (t.droppedEvents() > 0) {
                all.put("vantage.dropped_events.thread." + t.id(), t.droppedEvents() + " (" + t.name() + ")");
            }
        }
        if (data.droppedDeviceRecords() > 0) {
            all.put("vantage.dropped_device_records", Long.toString(data.droppedDeviceRecords()));
        }
        this.metadata = Collections.unmodifiableMap(all);
    }

    private AnalysedTrace(AnalysedTrace of, Map<String, String> metadata) {
        this.a = of.a;
        this.columns = of.columns;
        this.offset = of.offset;
        this.exposeShapes = of.exposeShapes;
        this.threads = of.threads;
        this.metadata = metadata;
    }

    /**
     * Returns this trace with more metadata (replacing keys it has), sharing everything else: a converted trace's
     * job, run and rank, say. Closing either closes both.
     */
    public AnalysedTrace withMetadata(Map<String, String> more) {
        Map<String, String> all = new TreeMap<>(metadata);
        all.putAll(more);
        return new AnalysedTrace(this, Collections.unmodifiableMap(all));
    }

    /** Returns the rank the trace says it is ({@code rank} in its metadata, as {@code distributedInfo} gives it), or -1. */
    public int rank() {
        return parse(metadata.get("rank"), -1);
    }

    /** Returns the world size the trace says, or -1 when it says none. */
    public int worldSize() {
        return metadata.containsKey("rank") ? parse(metadata.get("world_size"), -1) : -1;
    }

    /** The integer a metadata value holds, or {@code absent} when there is none. */
    static int parse(String text, int absent) {
        try {
            return text == null ? absent : Integer.parseInt(text.strip());
        } catch (NumberFormatException e) {
            return absent;
        }
    }

    /**
     * Lets go of the columns' file when they were spilled to one (a read trace's); the trace is not read after. A
     * recorded window's columns go with the trace.
     */
    @Override
    public void close() {
        if (columns instanceof java.io.Closeable c) {
            try {
                c.close();
            } catch (java.io.IOException e) {
                // a spill file that cannot be closed is deleted at exit
            }
        }
    }

    /** Returns what the trace was made of. */
    public TraceData data() {
        return a.data;
    }

    @Override
    public long processId() {
        return a.data.processId();
    }

    @Override
    public String processName() {
        return a.data.processName();
    }

    @Override
    public long startEpochNanos() {
        return a.data.startNanos() + offset;
    }

    @Override
    public long endEpochNanos() {
        return a.data.stopNanos() + offset;
    }

    @Override
    public List<TraceThread> threads() {
        return threads;
    }

    @Override
    public List<TraceDevice> devices() {
        return a.data.devices();
    }

    @Override
    public long eventCount() {
        return a.eventCount;
    }

    @Override
    public long droppedEvents() {
        return a.droppedHost + a.data.droppedDeviceRecords();
    }

    @Override
    public Map<String, String> metadata() {
        return metadata;
    }

    @Override
    public EventCursor events() {
        return new Cursor();
    }

    /** The step spans, with the device work {@link StepRule} attributes to each; computed once. */
    @Override
    public synchronized List<TraceStep> steps() {
        if (steps == null) {
            List<TraceStep> spans = new ArrayList<>();
            for (StepSpan s : a.steps) {
                spans.add(new TraceStep(s.number(), s.startNanos() + offset, s.endNanos() + offset,
                        s.startNanos() + offset));
            }
            StepRule r = StepRule.of(spans);
            DeviceRows d = a.device;
            for (int i = 0; i < d.size() && r.size() > 0; i++) {
                if (d.kind(i).isDeviceWork()) {
                    long launch = a.activityOpStart[i];
                    r.attribute(d.start(i) + offset, launch < 0 ? -1 : launch + offset, d.end(i) + offset);
                }
            }
            steps = r.steps();
            rule = r;
        }
        return steps;
    }

    private synchronized StepRule rule() {
        steps();
        return rule;
    }

    /**
     * Returns the events grouped by name, as torch's {@code key_averages()}: with {@code groupByInputShape} by name
     * and input shapes, with {@code groupByStackN} above 0 also by that many innermost frames of the calling stack.
     * Grouped afresh each call, in one pass over the analysis; a caller that asks again keeps the result.
     *
     * @throws IllegalArgumentException if {@code groupByStackN} is negative
     */
    public KeyAverages keyAverages(boolean groupByInputShape, int groupByStackN) {
        return KeyAveragesImpl.of(a, groupByInputShape, groupByStackN, false);
    }

    /**
     * Returns the trace's views: the key averages by name and by input shape (with the kind of each row), the device
     * work by name and by launching op, the steps' breakdown, memory curves, kernels' launch facts, collectives and
     * overlap, all from this trace's one analysis.
     *
     * @param source what the trace is called in the views (its file's name)
     */
    public TraceSummary summary(String source) {
        return Summaries.of(this, a, rule(), source);
    }

    /** The most points a memory curve of {@link #summary} keeps. */
    public static final int MAX_CURVE_POINTS = Summaries.MAX_CURVE_POINTS;

    /** Returns every event as an object, the profile's {@code events()}: step spans, host events, device work. */
    public synchronized List<ProfilerEvent> eventList() {
        if (events == null) {
            events = EventList.of(a);
        }
        return events;
    }

    /** Walks three sections in turn: step spans, thread events, device activities. */
    private final class Cursor implements EventCursor {
        private int section;
        private int thread;
        private int index = -1;
        private HostRows current;
        private Column arena;
        private Details.Read details;
        private final long[] memory = new long[6];
        private boolean memoryRead;
        private boolean isMemory;
        private final StepRule steps = rule();

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
                while (thread < a.data.threads().size()) {
                    current = a.rows(thread);
                    arena = a.data.threads().get(thread).details();
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
            if (index + 1 < a.device.size()) {
                index++;
                return true;
            }
            return false;
        }

        private StepSpan step() {
            return a.steps.get(index);
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
                case 1 -> a.data.name(current.name(index));
                default -> a.device.name(index);
            };
        }

        @Override
        public EventKind kind() {
            return switch (section) {
                case 0 -> EventKind.USER_ANNOTATION;
                case 1 -> EventKind.ofId(current.kind(index));
                default -> a.device.kind(index);
            };
        }

        @Override
        public long threadId() {
            return switch (section) {
                case 0 -> step().threadId();
                case 1 -> a.data.threads().get(thread).threadId();
                default -> a.device.launchThreadId(index);
            };
        }

        @Override
        public long startEpochNanos() {
            return offset + switch (section) {
                case 0 -> step().startNanos();
                case 1 -> current.start(index);
                default -> a.device.start(index);
            };
        }

        @Override
        public long durationNanos() {
            return switch (section) {
                case 0 -> step().endNanos() - step().startNanos();
                case 1 -> a.end(current, index) - current.start(index);
                default -> a.device.duration(index);
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

        @Override
        public int stepIndex() {
            return switch (section) {
                case 0 -> steps.indexAt(startEpochNanos());
                case 1 -> steps.indexAt(startEpochNanos());
                default -> a.device.kind(index).isDeviceWork()
                        ? steps.indexOf(startEpochNanos(), launchEpochNanos()) : -1;
            };
        }

        @Override
        public boolean isStep() {
            return section == 0;
        }

        @Override
        public boolean isCommunication() {
            return section == 2 && a.device.kind(index).isDeviceWork() && a.device.isCommunication(index);
        }

        /** Reads the current memory event's fields once; false for other events. */
        private boolean memory() {
            if (!memoryRead) {
                memoryRead = true;
                if (section == 2) {
                    isMemory = Analysis.isMemory(a.device.kind(index).id());
                    if (isMemory) {
                        memory[2] = a.device.memoryAddress(index);
                        memory[3] = a.device.memoryBytes(index);
                        memory[4] = a.device.memoryTotalAllocated(index);
                        memory[5] = a.device.memoryTotalReserved(index);
                    }
                } else {
                    Column at = section == 1 ? a.detailsAt[thread] : null;
                    isMemory = section == 1 && Analysis.isMemory(current.kind(index)) && at != null
                            && at.getLong(index) >= 0 && Details.readMemory(arena, at.getLong(index), memory);
                }
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
            if (!memory() || section == 2) {
                // a device's own report says nothing of what the memory holds
                return "";
            }
            int category = Details.memoryCategory(arena, a.detailsAt[thread].getLong(index));
            return MemoryCategory.ofIndex(category).torchName();
        }

        @Override
        public long parentId() {
            if (section == 2) {
                // a device's memory report belongs to the op that launched the work, as a host allocation to its op
                return memory() ? a.activityOp[index] : -1;
            }
            return section == 1 ? a.parentId(thread, a.parent[thread].getInt(index)) : -1;
        }

        @Override
        public long selfDurationNanos() {
            return switch (section) {
                case 0 -> a.stepSelfNanos[index];
                case 1 -> a.selfNanos[thread].getLong(index);
                default -> a.device.kind(index).isDeviceWork() ? 0 : durationNanos();
            };
        }

        @Override
        public long deviceSelfNanos() {
            return switch (section) {
                case 0 -> 0;
                case 1 -> a.selfDevice == null ? 0 : a.selfDevice[thread][index];
                default -> a.device.kind(index).isDeviceWork() ? durationNanos() : 0;
            };
        }

        @Override
        public long deviceTotalNanos() {
            return switch (section) {
                case 0 -> a.stepDeviceNanos[index];
                case 1 -> a.totalDevice == null ? 0 : a.totalDevice[thread][index];
                default -> a.device.kind(index).isDeviceWork() ? durationNanos() : 0;
            };
        }

        @Override
        public long correlationId() {
            return section == 2 ? a.activityOp[index] : eventId();
        }

        @Override
        public long launchEpochNanos() {
            long launch = section == 2 && a.device.kind(index).isDeviceWork() ? a.activityOpStart[index] : -1;
            return launch < 0 ? -1 : launch + offset;
        }

        @Override
        public long flowId() {
            // an arrow needs both ends: a launch that launched nothing here, or work whose launch is missing, has none
            return section == 2 && a.pairedFlow.get(index) ? a.device.flowId(index) : -1;
        }

        @Override
        public Map<String, String> args() {
            if (section == 1) {
                // most traces carry no host arguments: no boxed key per event then
                Map<Long, Map<String, String>> hostArgs = a.data.hostArgs();
                Map<String, String> args = hostArgs.isEmpty() ? null
                        : hostArgs.get(TraceData.handle(thread, index));
                return args == null ? Map.of() : args;
            }
            return section == 2 ? a.device.args(index) : Map.of();
        }

        @Override
        public String deviceType() {
            if (memory() && section == 1) {
                return a.data.name((int) memory[0]);
            }
            return section == 2 ? a.device.deviceType(index) : "";
        }

        @Override
        public int deviceIndex() {
            if (memory()) {
                return section == 1 ? (int) memory[1] : a.device.deviceIndex(index);
            }
            return section == 2 && a.device.kind(index).isDeviceWork() ? a.device.deviceIndex(index) : -1;
        }

        @Override
        public long streamId() {
            return section == 2 && a.device.kind(index).isDeviceWork() ? a.device.streamId(index) : -1;
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
            return a.data.stack(details().stackId());
        }

        @Override
        public long flops() {
            return section == 1 && a.flops != null ? a.flops[thread][index] : 0;
        }
    }
}
