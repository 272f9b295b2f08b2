package dev.vantage.profiler.core.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import dev.vantage.profiler.api.KeyAverages;
import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.api.ProfileOptions;
import dev.vantage.profiler.api.ProfileState;
import dev.vantage.profiler.api.ProfilerEvent;
import dev.vantage.profiler.spi.OpNames;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.Trace;

/**
 * One profile. Lifecycle: RECORDING from construction to {@link #stop()}, then STOPPED. {@code stop()} only
 * unpublishes the recorder and freezes the buffers; events, key averages and the trace are built on first read,
 * once, under this object's lock.
 */
final class ProfileSession implements Profile {

    private final ProfilerComponent owner;
    private final ProfileOptions options;
    private final Recorder recorder;
    private final AtomicReference<ProfileState> state = new AtomicReference<>(ProfileState.RECORDING);
    private final AtomicLong steps = new AtomicLong();
    private final long startNanos;
    private final long epochOffsetNanos;
    private final Map<String, String> metadata = new ConcurrentHashMap<>();
    private volatile RecordedEvents recorded;
    private RecordedTrace trace;
    private KeyAverages keyAverages;
    private List<ProfilerEvent> events;

    ProfileSession(ProfilerComponent owner, ProfileOptions options, long maxEvents) {
        this.owner = owner;
        this.options = options;
        this.recorder = new Recorder(maxEvents);
        Instant wall = Instant.now();
        this.startNanos = System.nanoTime();
        this.epochOffsetNanos = wall.getEpochSecond() * 1_000_000_000L + wall.getNano() - startNanos;
        metadata.put("vantage.max_events", Long.toString(maxEvents));
    }

    Recorder recorder() {
        return recorder;
    }

    /** Adds a fact for the trace metadata; later values for a key replace earlier ones. */
    void putMetadata(String key, String value) {
        metadata.put(key, value);
    }

    @Override
    public ProfileState state() {
        return state.get();
    }

    @Override
    public void step() {
        if (state.get() != ProfileState.RECORDING) {
            throw new IllegalStateException("step() on a profile that is " + state.get());
        }
        steps.incrementAndGet();
    }

    @Override
    public long stepNumber() {
        return steps.get();
    }

    @Override
    public void stop() {
        if (state.compareAndSet(ProfileState.RECORDING, ProfileState.STOPPED)) {
            long stopNanos = System.nanoTime();
            owner.stopped(this);
            recorded = new RecordedEvents(recorder.snapshot(), stopNanos);
        }
    }

    @Override
    public void close() {
        stop();
    }

    private RecordedEvents recorded() {
        RecordedEvents r = recorded;
        if (r == null) {
            throw new IllegalStateException("the profile is " + state.get() + "; stop it before reading it");
        }
        return r;
    }

    @Override
    public synchronized List<ProfilerEvent> events() {
        if (events == null) {
            events = buildEvents(recorded());
        }
        return events;
    }

    private static List<ProfilerEvent> buildEvents(RecordedEvents r) {
        List<ProfilerEvent> list = new ArrayList<>((int) Math.min(Integer.MAX_VALUE, r.eventCount));
        for (int t = 0; t < r.threads.size(); t++) {
            ThreadBuffer.Snapshot s = r.threads.get(t);
            int n = s.size();
            int[] parents = r.parent[t];
            // children per event, from the parent links, in recording order
            int[] childCount = new int[n];
            for (int i = 0; i < n; i++) {
                if (parents[i] >= 0) {
                    childCount[parents[i]]++;
                }
            }
            long[][] children = new long[n][];
            for (int i = 0; i < n; i++) {
                children[i] = new long[childCount[i]];
                childCount[i] = 0;
            }
            long first = r.firstId[t];
            for (int i = 0; i < n; i++) {
                int p = parents[i];
                if (p >= 0) {
                    children[p][childCount[p]++] = first + i;
                }
            }
            for (int i = 0; i < n; i++) {
                List<Long> ids = new ArrayList<>(children[i].length);
                for (long id : children[i]) {
                    ids.add(id);
                }
                list.add(new ProfilerEvent(first + i, OpNames.name(s.name(i)), EventKind.ofId(s.kind(i)),
                        s.threadId(), s.start(i), r.end(s, i), parents[i] < 0 ? -1 : first + parents[i], ids));
            }
        }
        return Collections.unmodifiableList(list);
    }

    @Override
    public synchronized KeyAverages keyAverages() {
        if (keyAverages == null) {
            keyAverages = KeyAveragesImpl.of(recorded());
        }
        return keyAverages;
    }

    @Override
    public synchronized Trace trace() {
        if (trace == null) {
            RecordedEvents r = recorded();
            trace = new RecordedTrace(r, epochOffsetNanos, startNanos, owner.processName(), metadata);
        }
        return trace;
    }

    @Override
    public void exportChromeTrace(Path path) throws IOException {
        export("chrome", path);
    }

    @Override
    public void export(String format, Path target) throws IOException {
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(target, "target");
        owner.export(trace(), format, target);
    }

    ProfileOptions options() {
        return options;
    }
}
