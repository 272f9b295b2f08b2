package dev.vantage.exporter.perfetto.internal;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.vantage.perfetto.format.proto.CounterDescriptor;
import dev.vantage.perfetto.format.proto.ProcessDescriptor;
import dev.vantage.perfetto.format.proto.ThreadDescriptor;
import dev.vantage.perfetto.format.proto.TrackDescriptor;
import dev.vantage.profiler.trace.EventCursor;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.Trace;
import dev.vantage.profiler.trace.TraceDevice;
import dev.vantage.profiler.trace.TraceThread;

/**
 * The tracks of one trace, laid out as the chrome exporter lays out its rows: the profiled JVM as a process with a
 * thread track per thread ({@code thread <id> (<name>)}) and the GC pseudo-thread (tid 0, {@code GC (JVM pauses)});
 * each device as a process ({@code NPU 0 (emulated)} for an emulated one, its pid the chrome exporter's: the index,
 * plus 100 per further device type) with a thread track per stream ({@code stream <n>}, tid the stream id). The
 * root descriptor asks for explicit order, and each track's rank is the chrome exporter's sort index. Descriptors
 * are written when a track is first used, so a trace declares only tracks it has events on (and the JVM's
 * threads).
 */
final class Tracks {

    private static final long DEVICE_SORT_OFFSET = 1_000_000;
    private static final int TYPE_STRIDE = 100;

    private final Packets packets;
    private final Lane.Scratch scratch;
    private final long startNanos;
    private final int hostPid;
    private final TrackDescriptor hostProcess;
    private final List<String> types = new ArrayList<>();
    private final Map<String, TraceDevice> devices = new HashMap<>();
    private final Map<Long, Track> threads = new LinkedHashMap<>();
    private final Map<Long, TrackDescriptor> deviceProcesses = new LinkedHashMap<>();
    private final Map<Long, Map<Long, Track>> streams = new LinkedHashMap<>();
    private final List<TrackDescriptor> declared = new ArrayList<>();
    private final int threadCount;
    private long nextUuid = 1;
    private Track gc;
    private long lastThreadId = Long.MIN_VALUE;
    private Track lastThread;
    private String lastStreamType;
    private int lastStreamIndex;
    private long lastStreamId;
    private Track lastStream;

    Tracks(Trace trace, Packets packets, Lane.Scratch scratch) {
        this.packets = packets;
        this.scratch = scratch;
        this.startNanos = trace.startEpochNanos();
        this.hostPid = (int) trace.processId();
        this.hostProcess = TrackDescriptor.newBuilder().setUuid(nextUuid++)
                .setProcess(ProcessDescriptor.newBuilder().setPid(hostPid).setProcessName(trace.processName())
                        .addProcessLabels("CPU"))
                .setSiblingOrderRank(hostPid)
                .build();
        for (TraceDevice d : trace.devices()) {
            devices.put(d.type() + ":" + d.index(), d);
            if (!types.contains(d.type())) {
                types.add(d.type());
            }
        }
        List<TraceThread> list = trace.threads();
        for (int i = 0; i < list.size(); i++) {
            TraceThread t = list.get(i);
            threads.put(t.id(), thread(t.id(), "thread " + t.id() + " (" + t.name() + ")", i));
        }
        this.threadCount = list.size();
    }

    /** Writes the root's ordering, the JVM's process and its threads. */
    void declareHost() throws IOException {
        packets.descriptor(TrackDescriptor.newBuilder().setUuid(0)
                .setProcessOrdering(TrackDescriptor.ProcessOrdering.PROCESS_ORDERING_EXPLICIT)
                .setThreadOrdering(TrackDescriptor.ThreadOrdering.THREAD_ORDERING_EXPLICIT).build(), startNanos);
        declare(hostProcess);
        for (Track t : threads.values()) {
            declare(t.descriptor);
        }
    }

    TrackDescriptor hostProcess() {
        return hostProcess;
    }

    /** Returns the track an event other than a memory event goes on, creating it at its first event. */
    Track of(EventCursor c, EventKind kind) {
        if (kind.isDeviceWork()) {
            return stream(c.deviceType(), c.deviceIndex(), c.streamId());
        }
        if (kind == EventKind.GC) {
            if (gc == null) {
                gc = new Track(this, "GC (JVM pauses)", TrackDescriptor.newBuilder().setUuid(nextUuid++)
                        .setThread(ThreadDescriptor.newBuilder().setPid(hostPid).setTid(0)
                                .setThreadName("GC (JVM pauses)"))
                        .setSiblingOrderRank(threadCount).build(), hostProcess);
            }
            return gc;
        }
        long id = c.threadId();
        if (id == lastThreadId) {
            return lastThread;
        }
        Track t = threads.get(id);
        if (t == null) {
            // a thread that recorded nothing itself, such as one that only called the device runtime
            t = thread(id, "", threadCount + 1);
            threads.put(id, t);
        }
        lastThreadId = id;
        lastThread = t;
        return t;
    }

    private Track thread(long id, String name, int rank) {
        ThreadDescriptor.Builder d = ThreadDescriptor.newBuilder().setPid(hostPid).setTid(id);
        if (!name.isEmpty()) {
            d.setThreadName(name);
        }
        return new Track(this, name.isEmpty() ? "thread " + id : name, TrackDescriptor.newBuilder()
                .setUuid(nextUuid++).setThread(d).setSiblingOrderRank(rank).build(), hostProcess);
    }

    private Track stream(String type, int index, long stream) {
        if (type.equals(lastStreamType) && index == lastStreamIndex && stream == lastStreamId) {
            return lastStream;
        }
        long pid = devicePid(type, index);
        Map<Long, Track> rows = streams.computeIfAbsent(pid, k -> new HashMap<>());
        Track t = rows.get(stream);
        if (t == null) {
            String name = "stream " + stream;
            t = new Track(this, deviceProcesses.get(pid).getProcess().getProcessName() + " " + name,
                    TrackDescriptor.newBuilder().setUuid(nextUuid++)
                            .setThread(ThreadDescriptor.newBuilder().setPid((int) pid).setTid(stream)
                                    .setThreadName(name))
                            .setSiblingOrderRank((int) Math.max(Integer.MIN_VALUE,
                                    Math.min(Integer.MAX_VALUE, stream)))
                            .build(), deviceProcesses.get(pid));
            rows.put(stream, t);
        }
        lastStreamType = type;
        lastStreamIndex = index;
        lastStreamId = stream;
        lastStream = t;
        return t;
    }

    /** Returns the process id of a device as the chrome exporter numbers it, creating its process track. */
    long devicePid(String type, int index) {
        int t = types.indexOf(type);
        if (t < 0) {
            types.add(type);
            t = types.size() - 1;
        }
        long pid = (long) t * TYPE_STRIDE + index;
        if (!deviceProcesses.containsKey(pid)) {
            TraceDevice d = devices.get(type + ":" + index);
            String label = type.toUpperCase(Locale.ROOT) + " " + index;
            String name = d != null && d.emulated() ? label + " (emulated)" : label;
            deviceProcesses.put(pid, TrackDescriptor.newBuilder().setUuid(nextUuid++)
                    .setProcess(ProcessDescriptor.newBuilder().setPid((int) pid).setProcessName(name)
                            .addProcessLabels(label))
                    .setSiblingOrderRank((int) (DEVICE_SORT_OFFSET + pid)).build());
        }
        return pid;
    }

    /** A counter track under the JVM's process. */
    TrackDescriptor counter(String name, CounterDescriptor counter) throws IOException {
        TrackDescriptor d = TrackDescriptor.newBuilder().setUuid(nextUuid++).setParentUuid(hostProcess.getUuid())
                .setName(name).setCounter(counter).build();
        declare(d);
        return d;
    }

    /** A track of its own at the top, for the profiler's span. */
    Track custom(String name) {
        return new Track(this, name, TrackDescriptor.newBuilder().setUuid(nextUuid++).setName(name).build(), null);
    }

    /** A lane of a track: the first is the track itself, further ones are child tracks for overlapping slices. */
    Lane newLane(Track track, int number) throws IOException {
        if (track.process != null) {
            declare(track.process);
        }
        declare(track.descriptor);
        long uuid = track.uuid();
        if (number > 0) {
            TrackDescriptor child = TrackDescriptor.newBuilder().setUuid(nextUuid++).setParentUuid(uuid)
                    .setName(track.name + " (overlap " + number + ")").build();
            declare(child);
            uuid = child.getUuid();
        }
        return new Lane(uuid, packets, scratch);
    }

    private void declare(TrackDescriptor d) throws IOException {
        for (TrackDescriptor done : declared) {
            if (done == d) {
                return;
            }
        }
        declared.add(d);
        packets.descriptor(d, startNanos);
    }

    /** Every track created, for closing. */
    Collection<Track> all() {
        List<Track> all = new ArrayList<>(threads.values());
        if (gc != null) {
            all.add(gc);
        }
        streams.values().forEach(m -> all.addAll(m.values()));
        return all;
    }

    /** Returns the devices of the trace marked emulated, as {@code type:index}. */
    List<String> emulatedDevices() {
        List<String> list = new ArrayList<>();
        devices.forEach((key, d) -> {
            if (d.emulated()) {
                list.add(key);
            }
        });
        list.sort(null);
        return list;
    }
}
