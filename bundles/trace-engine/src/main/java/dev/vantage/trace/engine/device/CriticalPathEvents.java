package dev.vantage.trace.engine.device;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.vantage.profiler.trace.EventKind;
import dev.vantage.trace.engine.DeviceRows;
import dev.vantage.trace.engine.DeviceSync;
import dev.vantage.trace.engine.HostThread;
import dev.vantage.trace.engine.StepSpan;
import dev.vantage.trace.engine.TraceData;
import dev.vantage.trace.engine.store.HostRows;

/**
 * A rank's events as HTA's analysis sees them, in one index (HTA's {@code index}: host events by start, then
 * runtime calls and device work by start): times in whole microseconds, the link between a launch and its work.
 */
final class CriticalPathEvents {

    // what an event is
    static final byte OP = 0;
    static final byte ANNOTATION = 1;
    static final byte RUNTIME = 2;
    static final byte WORK = 3;
    static final byte SYNC = 4;
    /** A sync whose call is not counted: left out, as HTA leaves out work whose launch it does not count. */
    static final byte DROPPED = 5;

    /** The sync event HTA names for a stream waiting on an event. */
    static final String STREAM_WAIT_EVENT = "Stream Wait Event";

    final int size;
    final long[] ts;
    final long[] end;
    final byte[] type;
    final long[] tid;
    final long[] stream;
    final int[] link;
    final String[] name;
    /** Per event, the queue length of its stream just after it (a launch or a start); -1 for none. */
    final int[] queue;
    /** Device work's and syncs' device. */
    final int[] device;
    /** Runtime calls' and syncs' correlation, or -1. */
    final long[] correlation;
    /** A sync's awaited event: the stream it was recorded on, and its cudaEventRecord's correlation (or -1). */
    final long[] waitStream;
    final long[] waitRecord;
    /** A runtime call's sync (its event), for the calls that synchronised. */
    final Map<Integer, Integer> syncOfCall = new HashMap<>();
    /** The {@code cudaEventRecord} calls by correlation. */
    private final Map<Long, Integer> records = new HashMap<>();
    /** Per {@code cudaEventRecord} call, the launch whose work the recorded event stands for. */
    Map<Integer, Integer> previousLaunch;
    /** Per {@code cudaStreamWaitEvent} call, the launch whose work waits. */
    Map<Integer, Integer> nextLaunch;
    /** How many host events come first; both runs, host and device side, are in start order. */
    private int hostCount;
    /** Per event, where its dependents (work and device-side syncs linked to it) begin in {@link #dependents}. */
    private int[] dependentsFrom;
    private int[] dependents;
    /** Device-side syncs of a stream waiting on an event: in every window. */
    private int[] streamWaits;

    private CriticalPathEvents(int n) {
        size = n;
        ts = new long[n];
        end = new long[n];
        type = new byte[n];
        tid = new long[n];
        stream = new long[n];
        device = new int[n];
        correlation = new long[n];
        waitStream = new long[n];
        waitRecord = new long[n];
        link = new int[n];
        name = new String[n];
        queue = new int[n];
        Arrays.fill(link, -1);
        Arrays.fill(queue, -1);
        Arrays.fill(stream, -1);
        Arrays.fill(correlation, -1);
    }

    static CriticalPathEvents of(TraceData trace, DeviceWork work) {
        long cut = work.cutNanos();
        List<long[]> host = new ArrayList<>();
        List<String> hostNames = new ArrayList<>();
        for (StepSpan s : trace.steps()) {
            if (s.threadId() != -1 && s.startNanos() < cut) {
                host.add(new long[] {s.startNanos(), s.endNanos(), ANNOTATION, s.threadId()});
                hostNames.add(s.name());
            }
        }
        for (HostThread t : trace.threads()) {
            HostRows rows = t.rows();
            for (int i = 0; i < rows.size(); i++) {
                int kind = rows.kind(i);
                byte type = kind == EventKind.CPU_OP.id() ? OP : kind == EventKind.USER_ANNOTATION.id()
                        ? ANNOTATION : -1;
                if (type >= 0 && rows.start(i) < cut) {
                    host.add(new long[] {rows.start(i), rows.end(i), type, t.threadId()});
                    hostNames.add(trace.name(rows.name(i)));
                }
            }
        }
        DeviceRows rows = work.rows();
        // runtime calls, and the work each launched (its row, by the call's row)
        Map<Integer, Integer> workOfCall = new HashMap<>();
        for (int k = 0; k < work.size(); k++) {
            if (work.launch(k) >= 0) {
                workOfCall.put(work.launch(k), work.row(k));
            }
        }
        // the device side in one order: {kind (0 call, 1 work, 2 sync), row or sync, start}
        List<long[]> device = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            if (rows.kind(i) == EventKind.RUNTIME && rows.start(i) < cut) {
                device.add(new long[] {0, i, rows.start(i)});
            }
        }
        for (int w : workOfCall.values()) {
            device.add(new long[] {1, w, rows.start(w)});
        }
        List<DeviceSync> syncs = trace.syncs();
        for (int i = 0; i < syncs.size(); i++) {
            device.add(new long[] {2, i, syncs.get(i).startNanos()});
        }
        Integer[] h = new Integer[host.size()];
        Arrays.setAll(h, i -> i);
        Arrays.sort(h, Comparator.comparingLong((Integer i) -> host.get(i)[0]));
        device.sort((x, y) -> x[2] != y[2] ? Long.compare(x[2], y[2])
                : x[0] != y[0] ? Long.compare(x[0], y[0]) : Long.compare(x[1], y[1]));
        CriticalPathEvents ev = new CriticalPathEvents(h.length + device.size());
        ev.hostCount = h.length;
        int e = 0;
        for (int i : h) {
            long[] x = host.get(i);
            ev.set(e, x[0], x[1]);
            ev.type[e] = (byte) x[2];
            ev.tid[e] = x[3];
            ev.name[e++] = hostNames.get(i);
        }
        Map<Integer, Integer> eventOfCall = new HashMap<>();
        Map<Integer, Integer> eventOfWork = new HashMap<>();
        Map<Long, Integer> callOfCorrelation = new HashMap<>();
        List<Integer> syncEvents = new ArrayList<>();
        for (long[] x : device) {
            int row = (int) x[1];
            if (x[0] == 2) {
                DeviceSync sync = syncs.get(row);
                ev.set(e, sync.startNanos(), sync.endNanos());
                ev.name[e] = sync.name();
                ev.type[e] = SYNC;
                ev.stream[e] = sync.stream();
                ev.device[e] = sync.deviceIndex();
                ev.correlation[e] = sync.correlation();
                ev.waitStream[e] = sync.waitOnStream();
                ev.waitRecord[e] = sync.waitOnEventRecord();
                syncEvents.add(e++);
                continue;
            }
            ev.set(e, rows.start(row), rows.end(row));
            ev.name[e] = rows.name(row);
            if (x[0] == 0) {
                ev.type[e] = RUNTIME;
                ev.tid[e] = rows.launchThreadId(row);
                ev.correlation[e] = rows.flowId(row);
                eventOfCall.put(row, e);
                if (rows.flowId(row) >= 0) {
                    callOfCorrelation.putIfAbsent(rows.flowId(row), e);
                }
            } else {
                ev.type[e] = WORK;
                ev.stream[e] = rows.streamId(row);
                ev.device[e] = rows.deviceIndex(row);
                eventOfWork.put(row, e);
            }
            e++;
        }
        workOfCall.forEach((call, w) -> {
            Integer c = eventOfCall.get(call);
            if (c != null) {
                int we = eventOfWork.get(w);
                ev.link[c] = we;
                ev.link[we] = c;
            }
        });
        // a sync to the call that waited (same correlation); a sync whose call is not counted is left out, as
        // HTA leaves out device work whose launch it does not count
        for (int se : syncEvents) {
            Integer c = callOfCorrelation.get(ev.correlation[se]);
            if (c != null) {
                ev.link[se] = c;
                ev.syncOfCall.put(c, se);
            } else {
                ev.type[se] = DROPPED;
            }
        }
        ev.queueLengths();
        ev.matchEventSyncs();
        ev.indexDependents();
        return ev;
    }

    /** Host-side events: ops, annotations, runtime calls and syncs of no stream; the rest follow their call. */
    boolean hostSide(int e) {
        byte t = type[e];
        return t == OP || t == ANNOTATION || t == RUNTIME || t == SYNC && stream[e] < 0;
    }

    private void indexDependents() {
        dependentsFrom = new int[size + 1];
        int waits = 0;
        for (int e = 0; e < size; e++) {
            if (type[e] != DROPPED && !hostSide(e)) {
                if (link[e] >= 0) {
                    dependentsFrom[link[e] + 1]++;
                }
                if (type[e] == SYNC && name[e].equals(STREAM_WAIT_EVENT)) {
                    waits++;
                }
            }
        }
        for (int e = 0; e < size; e++) {
            dependentsFrom[e + 1] += dependentsFrom[e];
        }
        dependents = new int[dependentsFrom[size]];
        streamWaits = new int[waits];
        int[] next = Arrays.copyOf(dependentsFrom, size);
        waits = 0;
        for (int e = 0; e < size; e++) {
            if (type[e] != DROPPED && !hostSide(e)) {
                if (link[e] >= 0) {
                    dependents[next[link[e]]++] = e;
                }
                if (type[e] == SYNC && name[e].equals(STREAM_WAIT_EVENT)) {
                    streamWaits[waits++] = e;
                }
            }
        }
    }

    /**
     * The events of a window, in index order: host-side events of positive duration that start in it, the device
     * work and device-side syncs of the calls among them, and every sync of a stream waiting on an event. The
     * same events as a test of each event against the window, found through the two runs' start order instead.
     */
    int[] window(long start, long endUs) {
        int[] out = new int[64];
        int n = 0;
        for (int[] run : new int[][] {{0, hostCount}, {hostCount, size}}) {
            for (int e = firstAtOrAfter(run[0], run[1], start); e < run[1] && ts[e] <= endUs; e++) {
                if (dur(e) <= 0) {
                    continue;
                }
                if (n + 1 + dependentsFrom[e + 1] - dependentsFrom[e] > out.length) {
                    out = Arrays.copyOf(out, Math.max(out.length * 2, n + 1 + dependentsFrom[e + 1] - dependentsFrom[e]));
                }
                if (hostSide(e)) {
                    out[n++] = e;
                }
                for (int d = dependentsFrom[e]; d < dependentsFrom[e + 1]; d++) {
                    out[n++] = dependents[d];
                }
            }
        }
        out = Arrays.copyOf(out, n + streamWaits.length);
        System.arraycopy(streamWaits, 0, out, n, streamWaits.length);
        Arrays.sort(out);
        return Arrays.stream(out).distinct().toArray();
    }

    private int firstAtOrAfter(int from, int to, long t) {
        int lo = from;
        int hi = to;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (ts[mid] < t) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /**
     * HTA's times: the start rounded up to the microsecond, the end down, from the microseconds as a double holds
     * them (as pandas reads the file: a start of {@code ...233.1} us is {@code ...233.0} there, so it stays at
     * {@code ...233}), and the end as the sum of the two doubles.
     */
    private void set(int e, long startNanos, long endNanos) {
        double start = java.math.BigDecimal.valueOf(startNanos, 3).doubleValue();
        double dur = java.math.BigDecimal.valueOf(endNanos - startNanos, 3).doubleValue();
        ts[e] = (long) Math.ceil(start);
        end[e] = (long) Math.floor(start + dur);
    }

    /**
     * HTA's queue length per stream at each launch (HTA's list of launch calls) and at the start of the work it
     * launched, in time order, launches first at one instant.
     */
    private void queueLengths() {
        Map<Long, List<int[]>> byStream = new TreeMap<>();
        for (int e = 0; e < size; e++) {
            if (type[e] == RUNTIME && link[e] >= 0 && LaunchCalls.launches(name[e], LaunchCalls.QUEUE)) {
                List<int[]> s = byStream.computeIfAbsent(stream[link[e]], x -> new ArrayList<>());
                s.add(new int[] {e, +1});
                s.add(new int[] {link[e], -1});
            }
        }
        for (List<int[]> s : byStream.values()) {
            s.sort((a, b) -> ts[a[0]] != ts[b[0]] ? Long.compare(ts[a[0]], ts[b[0]])
                    : a[1] != b[1] ? Integer.compare(b[1], a[1]) : Integer.compare(a[0], b[0]));
            int length = 0;
            for (int[] c : s) {
                length += c[1];
                queue[c[0]] = length;
            }
        }
    }

    /** The {@code cudaEventRecord} call of a correlation, or null. */
    Integer recordOf(long correlation) {
        return correlation < 0 ? null : records.get(correlation);
    }

    /** HTA's matching of event records and stream waits to launches, once for the rank (every window uses it). */
    private void matchEventSyncs() {
        for (int e = 0; e < size; e++) {
            if (type[e] == RUNTIME && name[e].equals("cudaEventRecord") && correlation[e] >= 0) {
                records.putIfAbsent(correlation[e], e);
            }
        }
        if (records.isEmpty() && syncOfCall.isEmpty()) {
            previousLaunch = Map.of();
            nextLaunch = Map.of();
            return;
        }
        List<Integer> launches = launches();
        previousLaunch = previousLaunchOfRecords(launches);
        nextLaunch = nextLaunchOfWaits(launches);
    }

    /** The launch calls HTA's queue counts whose work is in the trace, in launch order (HTA's launch_id). */
    private List<Integer> launches() {
        List<Integer> out = new ArrayList<>();
        for (int e = 0; e < size; e++) {
            if (type[e] == RUNTIME && link[e] >= 0 && type[link[e]] == WORK
                    && LaunchCalls.launches(name[e], LaunchCalls.QUEUE)) {
                out.add(e);
            }
        }
        out.sort(Comparator.comparingLong((Integer e) -> ts[e]).thenComparingInt(e -> e));
        return out;
    }

    /**
     * HTA's {@code _get_cuda_event_record_df}: for each {@code cudaEventRecord} call, the last launch before it of
     * work on the device and stream the event was recorded on (the stream a sync that awaited it names).
     */
    private Map<Integer, Integer> previousLaunchOfRecords(List<Integer> launches) {
        Map<Integer, Integer> out = new HashMap<>();
        // each record's device and stream, from the syncs that awaited it
        Map<Integer, long[]> recordedOn = new HashMap<>();
        for (int e = 0; e < size; e++) {
            if ((type[e] == SYNC || type[e] == DROPPED) && waitStream[e] > -1) {
                Integer record = recordOf(waitRecord[e]);
                if (record != null) {
                    recordedOn.putIfAbsent(record, new long[] {device[e], waitStream[e]});
                }
            }
        }
        recordedOn.forEach((record, on) -> {
            int last = -1;
            for (int l : launches) {
                int w = link[l];
                if (ts[l] > ts[record] || ts[l] == ts[record] && l > record) {
                    break;
                }
                if (device[w] == on[0] && stream[w] == on[1]) {
                    last = l;
                }
            }
            if (last >= 0) {
                out.put(record, last);
            }
        });
        return out;
    }

    /**
     * HTA's {@code _get_cuda_stream_wait_event_df}: for each {@code cudaStreamWaitEvent} call, the next launch on
     * its thread of work on the stream that was made to wait.
     */
    private Map<Integer, Integer> nextLaunchOfWaits(List<Integer> launches) {
        Map<Integer, Integer> out = new HashMap<>();
        for (Map.Entry<Integer, Integer> s : syncOfCall.entrySet()) {
            int call = s.getKey();
            int sync = s.getValue();
            if (!name[sync].equals(STREAM_WAIT_EVENT) || !name[call].equals("cudaStreamWaitEvent")) {
                continue;
            }
            for (int l : launches) {
                if ((ts[l] > ts[call] || ts[l] == ts[call] && l > call) && tid[l] == tid[call]
                        && stream[link[l]] == stream[sync]) {
                    out.put(call, l);
                    break;
                }
            }
        }
        return out;
    }

    long dur(int e) {
        return end[e] - ts[e];
    }
}
