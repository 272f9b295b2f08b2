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

    int size;
    long[] ts;
    long[] end;
    byte[] type;
    long[] tid;
    long[] stream;
    int[] link;
    String[] name;
    /** Per event, the queue length of its stream just after it (a launch or a start); -1 for none. */
    int[] queue;
    /** Device work's and syncs' device. */
    int[] device;
    /** Runtime calls' and syncs' correlation, or -1. */
    long[] correlation;
    /** A sync's awaited event: the stream it was recorded on, and its cudaEventRecord's correlation (or -1). */
    long[] waitStream;
    long[] waitRecord;
    /** A runtime call's sync (its event), for the calls that synchronised. */
    Map<Integer, Integer> syncOfCall;

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
        CriticalPathEvents ev = new CriticalPathEvents();
        int n = h.length + device.size();
        ev.size = n;
        ev.ts = new long[n];
        ev.end = new long[n];
        ev.type = new byte[n];
        ev.tid = new long[n];
        ev.stream = new long[n];
        ev.device = new int[n];
        ev.correlation = new long[n];
        ev.waitStream = new long[n];
        ev.waitRecord = new long[n];
        ev.link = new int[n];
        ev.name = new String[n];
        ev.queue = new int[n];
        Arrays.fill(ev.link, -1);
        Arrays.fill(ev.queue, -1);
        Arrays.fill(ev.stream, -1);
        Arrays.fill(ev.correlation, -1);
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
        ev.syncOfCall = new HashMap<>();
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
        return ev;
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

    long dur(int e) {
        return end[e] - ts[e];
    }
}
