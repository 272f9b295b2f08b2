package dev.vantage.trace.engine.device;

import static dev.vantage.trace.engine.device.CriticalPathEvents.ANNOTATION;
import static dev.vantage.trace.engine.device.CriticalPathEvents.OP;
import static dev.vantage.trace.engine.device.CriticalPathEvents.RUNTIME;
import static dev.vantage.trace.engine.device.CriticalPathEvents.SYNC;
import static dev.vantage.trace.engine.device.CriticalPathEvents.WORK;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

import dev.vantage.trace.engine.device.CriticalPath.Bound;
import dev.vantage.trace.engine.device.CriticalPath.Edge;
import dev.vantage.trace.engine.device.CriticalPath.EdgeType;

/**
 * The graph of one window of a rank's events ({@link CriticalPathEvents}), as HTA's {@code CPGraph} builds it, and its
 * longest path. Nodes and edges are added in HTA's order, which decides the path among equally long ones.
 */
final class CriticalPathGraph {

    // HTA's names
    private static final Set<String> LOCK_CALLS = Set.of("cudaHostAlloc", "cudaLaunchKernel", "cudaMemcpyAsync");
    private static final Set<String> BLOCKING_CALLS = Set.of("cudaDeviceSynchronize", "cudaStreamSynchronize",
            "cudaEventQuery", "cudaEventSynchronize", "cudaMemcpy", "cudaMemcpyAsync");
    private static final String EVENT_SYNC = "Event Sync";
    private static final String CONTEXT_SYNC = "Context Sync";
    private static final String STREAM_SYNC = "Stream Sync";
    private static final Pattern COMMUNICATION = Pattern.compile("(^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*)");

    final CriticalPathEvents ev;
    // nodes: event, time, start or end
    int nodes;
    int[] nodeEvent;
    long[] nodeTs;
    boolean[] nodeStart;
    // per event of the window (by its place in it), its start and end nodes; -1 for none
    int[] startNode;
    int[] endNode;
    // edges, by (from, to), in the order they were first added
    final Map<Long, int[]> edges = new LinkedHashMap<>();   // {from, to, type, weight}
    final Map<Long, Integer> attributed = new HashMap<>();
    List<List<Integer>> succ;
    List<List<Integer>> pred;
    /** The window's events, in index order (HTA's clipped events). */
    final int[] window;

    CriticalPathGraph(CriticalPathEvents ev, long start, long end) {
        this.ev = ev;
        window = ev.window(start, end);
        createNodes();
        lockEdges();
        callStackEdges();
        kernelEdges();
    }

    private void createNodes() {
        List<Integer> events = new ArrayList<>();
        for (int e : window) {
            if (ev.type[e] == OP || ev.type[e] == RUNTIME || ev.type[e] == WORK && ev.link[e] >= 0
                    || ev.type[e] == SYNC && ev.stream[e] >= 0) {
                events.add(e);
            }
        }
        int n = events.size() * 2;
        long[][] all = new long[n][];
        int k = 0;
        for (int e : events) {
            all[k++] = new long[] {ev.ts[e], e, 1};
        }
        for (int e : events) {
            all[k++] = new long[] {ev.end[e], e, 0};
        }
        Arrays.sort(all, (a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        nodes = n;
        startNode = new int[window.length];
        endNode = new int[window.length];
        Arrays.fill(startNode, -1);
        Arrays.fill(endNode, -1);
        nodeEvent = new int[n];
        nodeTs = new long[n];
        nodeStart = new boolean[n];
        succ = new ArrayList<>(n);
        pred = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            nodeTs[i] = all[i][0];
            nodeEvent[i] = (int) all[i][1];
            nodeStart[i] = all[i][2] == 1;
            (nodeStart[i] ? startNode : endNode)[Arrays.binarySearch(window, nodeEvent[i])] = i;
            succ.add(new ArrayList<>(2));
            pred.add(new ArrayList<>(2));
        }
    }

    /**
     * An edge's key in the maps: its two nodes, scrambled by an odd multiplier (one to one), so that the map's hash
     * (the key's two halves XORed) does not put the many edges between near nodes into the same buckets.
     */
    private static long key(int from, int to) {
        return (((long) from << 32) | (to & 0xffffffffL)) * 0x9E3779B97F4A7C15L;
    }

    /** An event's start node, or null when it has none. */
    private Integer startOf(int e) {
        int at = Arrays.binarySearch(window, e);
        return at < 0 || startNode[at] < 0 ? null : startNode[at];
    }

    /** An event's end node, or null when it has none. */
    private Integer endOf(int e) {
        int at = Arrays.binarySearch(window, e);
        return at < 0 || endNode[at] < 0 ? null : endNode[at];
    }

    private boolean hasNodes(int e) {
        return startOf(e) != null;
    }

    private int[] addEdge(int from, int to, EdgeType type, boolean zeroWeight) {
        if (from == to) {
            throw new IllegalStateException("an edge from a node to itself");
        }
        long weight = type == EdgeType.DEPENDENCY || type == EdgeType.SYNC_DEPENDENCY || zeroWeight ? 0
                : nodeTs[to] - nodeTs[from];
        long key = key(from, to);
        int[] edge = edges.get(key);
        if (edge == null) {
            edge = new int[4];
            edges.put(key, edge);
            succ.get(from).add(to);
            pred.get(to).add(from);
        }
        edge[0] = from;
        edge[1] = to;
        edge[2] = type.ordinal();
        edge[3] = (int) weight;
        return edge;
    }

    /** HTA's {@code _attribute_edge}: which event an op's or a gap's time is counted to. */
    private void attribute(int[] edge, int srcParent) {
        EdgeType type = EdgeType.values()[edge[2]];
        if (type != EdgeType.OPERATOR_KERNEL && type != EdgeType.KERNEL_KERNEL_DELAY) {
            return;
        }
        int src = edge[0];
        int dest = edge[1];
        int e;
        if (type == EdgeType.KERNEL_KERNEL_DELAY || nodeStart[src]) {
            e = nodeEvent[src];
        } else if (!nodeStart[dest]) {
            e = nodeEvent[dest];
        } else {
            e = srcParent;
        }
        attributed.put(key(src, dest), e);
    }

    private boolean isLockCall(int node) {
        return LOCK_CALLS.contains(ev.name[nodeEvent[node]]);
    }

    private boolean sharesLock(int first, int second) {
        return isLockCall(first) && isLockCall(second) && (nodeStart[first] || !nodeStart[second]);
    }

    /** Calls that take CUDA's runtime lock run one at a time, in the order they ended. */
    private void lockEdges() {
        List<Integer> starts = new ArrayList<>();
        int last = -1;
        for (int node = 0; node < nodes; node++) {
            if (!isLockCall(node)) {
                continue;
            }
            if (nodeStart[node]) {
                starts.add(node);
            } else {
                while (!starts.isEmpty()) {
                    int previous = starts.remove(starts.size() - 1);
                    if (nodeEvent[previous] == nodeEvent[node]) {
                        attribute(addEdge(previous, node, EdgeType.OPERATOR_KERNEL, false), nodeEvent[node]);
                    } else {
                        addEdge(previous, node, EdgeType.DEPENDENCY, false);
                    }
                }
                if (last >= 0 && !nodeStart[last]) {
                    addEdge(last, node, EdgeType.DEPENDENCY, false);
                }
            }
            last = node;
        }
    }

    /** Ops and calls in their nesting on each thread, the backward thread's on the forward thread. */
    private void callStackEdges() {
        long forward = threadOf("forward");
        long backward = threadOf("autograd");
        boolean merge = forward != Long.MIN_VALUE && backward != Long.MIN_VALUE && forward != backward;
        Map<Long, List<Integer>> byThread = new TreeMap<>();
        for (int e : window) {
            if ((ev.type[e] == OP || ev.type[e] == ANNOTATION || ev.type[e] == RUNTIME)) {
                long tid = merge && ev.tid[e] == backward ? forward : ev.tid[e];
                byThread.computeIfAbsent(tid, x -> new ArrayList<>()).add(e);
            }
        }
        for (List<Integer> events : byThread.values()) {
            callStack(events);
        }
    }

    /** The one thread whose ops or annotations have a name containing the text, else MIN_VALUE. */
    private long threadOf(String text) {
        Set<Long> tids = new HashSet<>();
        for (int e : window) {
            if ((ev.type[e] == OP || ev.type[e] == ANNOTATION) && ev.name[e].contains(text)) {
                tids.add(ev.tid[e]);
            }
        }
        return tids.size() == 1 ? tids.iterator().next() : Long.MIN_VALUE;
    }

    /** HTA's {@code CallStackGraph} of one thread, walked depth first with its enter and exit edges. */
    private void callStack(List<Integer> events) {
        // starts and ends, ordered as HTA's compare_events orders them
        List<long[]> marks = new ArrayList<>(events.size() * 2);   // {event, time, dur, start?1:0}
        for (int e : events) {
            long dur = Math.max(ev.dur(e), 0);
            marks.add(new long[] {e, ev.ts[e], dur, 1});
            marks.add(new long[] {e, ev.ts[e] + dur, dur, 0});
        }
        marks.sort(CriticalPathGraph::compareMarks);
        Map<Integer, List<Integer>> children = new HashMap<>();
        Map<Integer, Integer> parent = new HashMap<>();
        children.put(-1, new ArrayList<>());
        List<Integer> stack = new ArrayList<>();
        for (long[] m : marks) {
            int e = (int) m[0];
            if (m[3] == 1) {
                int p = stack.isEmpty() ? -1 : stack.get(stack.size() - 1);
                if (!parent.containsKey(e)) {
                    children.computeIfAbsent(p, x -> new ArrayList<>()).add(e);
                    children.putIfAbsent(e, new ArrayList<>());
                    parent.put(e, p);
                }
                stack.add(e);
            } else if (!stack.isEmpty()) {
                stack.remove(stack.size() - 1);
            }
        }
        // depth first: enter and exit each event with nodes
        int last = -1;
        int depth = 0;
        int lastParent = -1;
        List<int[]> todo = new ArrayList<>();   // {event, child position}
        todo.add(new int[] {-1, 0});
        while (!todo.isEmpty()) {
            int[] top = todo.get(todo.size() - 1);
            int e = top[0];
            List<Integer> kids = children.getOrDefault(e, List.of());
            if (top[1] < kids.size()) {
                int child = kids.get(top[1]++);
                // enter the child
                if (hasNodes(child)) {
                    int start = startOf(child);
                    if (last >= 0 && !sharesLock(last, start)) {
                        EdgeType type = depth == 0 ? EdgeType.DEPENDENCY : EdgeType.OPERATOR_KERNEL;
                        attribute(addEdge(last, start, type, false), lastParent);
                    }
                    last = start;
                    lastParent = parent.get(child);
                    depth++;
                }
                todo.add(new int[] {child, 0});
                continue;
            }
            todo.remove(todo.size() - 1);
            // exit e
            if (e >= 0 && hasNodes(e)) {
                int exit = endOf(e);
                if (last >= 0 && !sharesLock(last, exit)) {
                    boolean blocking = BLOCKING_CALLS.contains(ev.name[e]);
                    attribute(addEdge(last, exit, EdgeType.OPERATOR_KERNEL, blocking), lastParent);
                }
                last = exit;
                lastParent = parent.get(e);
                depth--;
            }
        }
    }

    /** HTA's {@code compare_events}. */
    private static int compareMarks(long[] x, long[] y) {
        if (x[0] == y[0]) {
            return x[3] == 1 ? -1 : 1;
        }
        long r = x[1] - y[1];
        if (r != 0) {
            return r < 0 ? -1 : 1;
        }
        if (x[3] == y[3]) {
            if (x[3] == 1) {
                return x[2] == y[2] ? Long.compare(x[0], y[0]) : x[2] < y[2] ? 1 : -1;
            }
            return x[2] == y[2] ? Long.compare(y[0], x[0]) : x[2] < y[2] ? -1 : 1;
        }
        if (x[2] > 0 && y[2] > 0) {
            return x[3] == 1 ? 1 : -1;
        }
        if (x[2] == 0 && y[2] == 0) {
            return Long.compare(x[0], y[0]);
        }
        return x[3] == 1 ? -1 : 1;
    }

    /**
     * Each piece of work: its own time, and the launch delay or the gap after the stream's previous work, or the
     * wait for another stream's work it was made to wait for; each sync: from the device work it waited for to the
     * call that waited. Work in start order, syncs at their end.
     */
    private void kernelEdges() {
        List<Integer> items = new ArrayList<>();
        for (int e : window) {
            if (ev.link[e] >= 0 && (ev.type[e] == WORK || ev.type[e] == SYNC)) {
                items.add(e);
            }
        }
        items.sort(Comparator.comparingLong((Integer e) -> ev.type[e] == SYNC ? ev.end[e] : ev.ts[e])
                .thenComparingInt(e -> e));
        Map<Long, Integer> lastNode = new LinkedHashMap<>();
        Map<Integer, Integer> kernelSync = new HashMap<>();
        for (int e : items) {
            if (ev.type[e] == SYNC) {
                sync(e, lastNode, kernelSync);
                continue;
            }
            if (!hasNodes(e)) {
                continue;
            }
            int start = startOf(e);
            int end = endOf(e);
            attribute(addEdge(start, end, EdgeType.OPERATOR_KERNEL, false), -1);
            long stream = ev.stream[e];
            int call = ev.link[e];
            Integer previous = lastNode.get(stream);
            Integer syncSource = kernelSync.get(e);
            Integer syncEnd = null;
            if (syncSource != null) {
                syncEnd = endOf(syncSource);
                if (syncEnd == null) {
                    syncSource = null;
                } else {
                    addEdge(syncEnd, start, EdgeType.SYNC_DEPENDENCY, false);
                }
                kernelSync.remove(e);
            }
            if (ev.queue[call] == 1 && ev.queue[e] == 0
                    && (previous == null || nodeTs[previous] < ev.ts[call])
                    && (syncSource == null || nodeTs[syncEnd] < ev.ts[call])) {
                addEdge(startOf(call), start, EdgeType.KERNEL_LAUNCH_DELAY, false);
            } else if (previous != null && nodeTs[start] - nodeTs[previous] < CriticalPath.KERNEL_KERNEL_DELAY_THRESHOLD_US
                    && (syncSource == null || nodeTs[syncEnd] < nodeTs[previous])) {
                attribute(addEdge(previous, start, EdgeType.KERNEL_KERNEL_DELAY, false), -1);
            }
            lastNode.put(stream, end);
        }
    }

    /** HTA's {@code handle_cuda_sync}: a sync event, met at its end. */
    private void sync(int e, Map<Long, Integer> lastNode, Map<Integer, Integer> kernelSync) {
        String name = ev.name[e];
        int call = ev.link[e];
        if (name.equals(CriticalPathEvents.STREAM_WAIT_EVENT) || name.equals(EVENT_SYNC)) {
            // the work launched last, on the awaited event's stream, before the event was recorded
            Integer record = ev.recordOf(ev.waitRecord[e]);
            Integer launch = record == null ? null : ev.previousLaunch.get(record);
            if (launch == null || ev.link[launch] < 0) {
                return;
            }
            int source = ev.link[launch];
            if (name.equals(CriticalPathEvents.STREAM_WAIT_EVENT)) {
                Integer next = ev.nextLaunch.get(call);
                if (next != null && ev.link[next] >= 0) {
                    kernelSync.put(ev.link[next], source);
                }
            } else if (endOf(source) != null) {
                syncEdge(endOf(source), call);
            }
            return;
        }
        if (name.equals(CONTEXT_SYNC)) {
            for (int node : new ArrayList<>(lastNode.values())) {
                syncEdge(node, call);
            }
        } else if (name.equals(STREAM_SYNC) && lastNode.containsKey(ev.stream[e])) {
            syncEdge(lastNode.get(ev.stream[e]), call);
        }
    }

    private void syncEdge(int deviceNode, int call) {
        Integer end = endOf(call);
        if (end != null) {
            addEdge(deviceNode, end, EdgeType.SYNC_DEPENDENCY, false);
        }
    }

    /**
     * The longest path, as networkx's {@code dag_longest_path} finds it on this graph (nodes and edges in the
     * order they were added; a weight below zero counts as zero), as edges.
     */
    List<Edge> path() {
        if (nodes == 0) {
            return List.of();
        }
        // HTA's check: a sync between two pieces of work of one stream means the trace's order is not to be trusted
        for (int[] edge : edges.values()) {
            int from = nodeEvent[edge[0]];
            int to = nodeEvent[edge[1]];
            if (edge[2] == EdgeType.SYNC_DEPENDENCY.ordinal() && ev.stream[from] != -1
                    && ev.stream[from] == ev.stream[to]) {
                throw new IllegalStateException("a synchronisation between device work of one stream");
            }
        }
        // topological order by generations, as networkx's topological_sort
        int[] indegree = new int[nodes];
        for (int v = 0; v < nodes; v++) {
            indegree[v] = pred.get(v).size();
        }
        int[] order = new int[nodes];
        int count = 0;
        List<Integer> generation = new ArrayList<>();
        for (int v = 0; v < nodes; v++) {
            if (indegree[v] == 0) {
                generation.add(v);
            }
        }
        while (!generation.isEmpty()) {
            List<Integer> next = new ArrayList<>();
            for (int u : generation) {
                order[count++] = u;
                for (int v : succ.get(u)) {
                    if (--indegree[v] == 0) {
                        next.add(v);
                    }
                }
            }
            generation = next;
        }
        if (count != nodes) {
            throw new IllegalStateException("the critical path graph has a cycle");
        }
        long[] dist = new long[nodes];
        int[] from = new int[nodes];
        for (int k = 0; k < nodes; k++) {
            int v = order[k];
            long best = Long.MIN_VALUE;
            int bestU = v;
            for (int u : pred.get(v)) {
                long d = dist[u] + Math.max(0, edges.get(key(u, v))[3]);
                if (d > best) {
                    best = d;
                    bestU = u;
                }
            }
            if (best == Long.MIN_VALUE || best < 0) {
                dist[v] = 0;
                from[v] = v;
            } else {
                dist[v] = best;
                from[v] = bestU;
            }
        }
        int v = order[0];
        for (int k = 0; k < nodes; k++) {
            if (dist[order[k]] > dist[v]) {
                v = order[k];
            }
        }
        List<Integer> path = new ArrayList<>();
        int u = -1;
        while (u != v) {
            path.add(v);
            u = v;
            v = from[v];
        }
        java.util.Collections.reverse(path);
        List<Edge> out = new ArrayList<>();
        for (int i = 0; i + 1 < path.size(); i++) {
            long key = key(path.get(i), path.get(i + 1));
            out.add(edge(edges.get(key), attributed.get(key)));
        }
        return out;
    }

    private Edge edge(int[] e, Integer event) {
        EdgeType type = EdgeType.values()[e[2]];
        Bound bound = null;
        String name = "";
        long thread = -1;
        long stream = -1;
        if (event != null && event >= 0) {
            name = ev.name[event];
            stream = ev.stream[event];
            thread = stream < 0 ? ev.tid[event] : -1;
        }
        if (type == EdgeType.KERNEL_KERNEL_DELAY) {
            bound = Bound.GPU_KERNEL_KERNEL_OVERHEAD;
        } else if (type == EdgeType.KERNEL_LAUNCH_DELAY) {
            bound = Bound.GPU_KERNEL_LAUNCH_OVERHEAD;
        } else if (type == EdgeType.OPERATOR_KERNEL) {
            bound = stream < 0 ? Bound.CPU_BOUND
                    : COMMUNICATION.matcher(name).lookingAt() ? Bound.GPU_COMMUNICATION_BOUND
                    : Bound.GPU_COMPUTE_BOUND;
        }
        return new Edge(name, e[3], type, bound, nodeTs[e[0]], thread, stream);
    }
}
