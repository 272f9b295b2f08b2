package dev.vantage.trace.engine.read;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import dev.vantage.profiler.trace.EventKind;
import dev.vantage.profiler.trace.TraceDevice;
import dev.vantage.trace.engine.DeviceNames;
import dev.vantage.trace.engine.DeviceSync;
import dev.vantage.trace.engine.TraceBuilder;
import dev.vantage.trace.engine.TraceSource;
import dev.vantage.trace.engine.store.Interner;

/**
 * Fills a {@link TraceBuilder} from a Chrome trace as torch has written it since 1.8: Kineto's JSON object (every
 * schema version: absolute integer microseconds of 2021, fractional nanoseconds since 2024, times relative to
 * {@code baseTimeNanoseconds} since mid-2024; the 2021 categories {@code Operator}, {@code Runtime}, {@code Kernel},
 * {@code Memcpy}, {@code Memset}, string tids such as {@code "stream 7"}, lower-case {@code external id}; CUDA and
 * ROCm runtime names; CUDA graphs' kernels, which are kernels like any other), the legacy array torch writes without
 * Kineto ({@code pid: "CPU functions"}, microseconds from the profiler's start, device work on
 * {@code "CUDA functions"} joined to its op by {@code cpu_to_cuda} flows), and Vantage's own traces.
 *
 * <p>One pass of Jackson's streaming parser, never a tree of the document: names are interned straight from the
 * parser's buffer and times parsed from its characters, so an event whose strings were seen before creates no
 * object. Unknown categories are kept as host events and counted; a category no view has a use for
 * ({@code gpu_user_annotation}, flows, metadata) is counted and skipped; {@code cuda_sync} events are kept as {@link
 * DeviceSync}s, which the critical path follows. The {@link PerfettoReader}
 * hands its slices to {@link #record} too, so both formats mean the same.
 *
 * <p>Damage is counted in a {@link TraceRepairs} (or refused by a strict one): a file that ends inside an event or
 * without its closing brackets ({@link #cutOff}), an event naming one of its fields twice. The repairing pass's
 * other repairs are {@link JsonRepairStream}'s.
 *
 * <p>Over 800 lines because one event is read in one method on the hot path of every trace read (a million events a
 * second is the budget): the variants above differ field by field inside that loop, and splitting them into classes
 * would put a call per field between the parser and the columns.
 */
final class KinetoJsonReader {

    // what a category means to the reader, decided once per category
    private static final byte SKIP = -1;
    private static final byte UNKNOWN = -2;
    private static final byte NONE = -3;
    private static final byte OP = 0;
    private static final byte ANNOTATION = 1;
    private static final byte RUNTIME = 2;
    private static final byte OTHER_HOST = 3;
    private static final byte KERNEL = 4;
    private static final byte MEMCPY = 5;
    private static final byte MEMSET = 6;
    private static final byte DRIVER = 8;
    private static final byte GC = 9;
    private static final byte SYNC = 10;

    /** A device's process, as Vantage and Kineto name it: {@code NPU 0 (emulated)}, {@code GPU 1}. */
    private static final Pattern DEVICE_PROCESS = Pattern.compile("([A-Za-z][A-Za-z0-9_]*) (\\d+)( .*)?");

    private final TraceBuilder b;
    private final Interner names;
    private final Interner categories = new Interner();
    private final Interner idents = new Interner();
    private final EventArgs args = new EventArgs();
    private byte[] kindOfCategory = new byte[16];
    private boolean[] seen = new boolean[16];
    private long[] categoryCounts = new long[16];
    /** Per name id: 1 = looked at, 2 = a collective op's name. */
    private byte[] nameFlags = new byte[256];
    // the last thread looked up, by pid and tid as read
    private long lastPid = Long.MIN_VALUE;
    private long lastTid = Long.MIN_VALUE;
    private int lastThread = -1;
    // the legacy format's last flow end: the device work written right after it is the flow's
    private long pendingFlow = Long.MIN_VALUE;
    private long pendingFlowTime = Long.MIN_VALUE;
    private final Map<String, String> threadNames = new HashMap<>();
    private final Map<Long, String> processNames = new HashMap<>();
    private final List<String> deviceTypes = new ArrayList<>();
    /** Per device row: the pid it was written on, for naming its device type once the processes are named. */
    private final List<Long> devicePids = new ArrayList<>();
    String format = "kineto";
    boolean sawEvents;
    long events;
    long unknownEvents;
    private int rank = -1;
    private int worldSize = 1;
    private String backend;
    private String processName;
    private long processId = -1;

    /** Where damage is counted, or refused. */
    private final TraceRepairs repairs;
    /** The repairing pass's stream, which maps offsets back to the file's and finds duplicate keys itself; or null. */
    private final JsonRepairStream repaired;
    // where the reading is, for a file that ends too soon
    private boolean inEvents;
    private boolean inEvent;
    private boolean eventsRead;
    /** Whether the event being read had a time without a reading: it is skipped, and was counted. */
    private boolean timeDamaged;

    /** A reader for the {@code .pftrace} reader, which gives events one at a time through {@link #record}. */
    KinetoJsonReader(TraceBuilder builder) {
        this(builder, new TraceRepairs(false), null);
    }

    /**
     * @param repairs the account of what the file needed
     * @param repaired the repairing pass's stream the parser reads, or null when it reads the file itself
     */
    KinetoJsonReader(TraceBuilder builder, TraceRepairs repairs, JsonRepairStream repaired) {
        this.b = builder;
        this.names = builder.names();
        this.repairs = repairs;
        this.repaired = repaired;
    }

    /**
     * The file ended before the JSON did (a killed writer, a gzip file cut short): what was read is kept. An event
     * cut off is skipped; the end of torch's array between events is allowed by the Trace Event Format; Kineto's
     * object left open is closed. Call {@link #finish()} after it.
     *
     * @param offset where the file ended
     */
    void cutOff(long offset) throws IOException {
        if (inEvent) {
            repairs.skipped(TraceRepairs.Kind.CUT_OFF, offset);
        } else if (!(inEvents && format.equals("legacy"))) {
            repairs.repaired(TraceRepairs.Kind.UNCLOSED, offset);
        }
        if (!eventsRead && !inEvents) {
            throw repairs.refusal(offset, "the file ends before its traceEvents");
        }
    }

    /** The file offset of the parser's current token. */
    private long offset(JsonParser p) {
        long at = p.currentTokenLocation().getByteOffset();
        return repaired == null || at < 0 ? at : repaired.fileOffset(at);
    }

    void read(JsonParser p) throws IOException {
        JsonToken first = p.nextToken();
        if (first == JsonToken.START_ARRAY) {
            // torch without Kineto: a bare array of events (and Chrome's array form)
            format = "legacy";
            events(p);
        } else if (first == JsonToken.START_OBJECT) {
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                switch (field) {
                    case "traceEvents" -> {
                        if (value != JsonToken.START_ARRAY) {
                            throw repairs.refusal(offset(p), "traceEvents is not an array");
                        }
                        events(p);
                    }
                    case "distributedInfo" -> distributedInfo(p);
                    case "deviceProperties" -> deviceProperties(p);
                    case "baseTimeNanoseconds" -> {
                        b.epochOffset(value == JsonToken.VALUE_NUMBER_INT ? EventArgs.longValue(p, 0)
                                : p.getValueAsLong());
                        b.metadata(field, p.getText());
                    }
                    default -> {
                        if (value.isScalarValue()) {
                            b.metadata(field, p.getText());
                        } else {
                            p.skipChildren();
                        }
                    }
                }
            }
        } else {
            throw repairs.refusal(offset(p), "it is not a JSON object or array");
        }
    }

    /** Names threads, processes and device types once every event was read, and says what was read. */
    void finish() {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (int id = 0; id < categories.size(); id++) {
            if (id < categoryCounts.length && categoryCounts[id] > 0) {
                counts.put(categories.get(id), categoryCounts[id]);
            }
        }
        b.source(new TraceSource(format, counts, unknownEvents, events));
        threadNames.forEach((key, name) -> {
            int slash = key.indexOf('/');
            b.threadName(b.thread(key, numeric(key.substring(slash + 1))), name);
        });
        String accelerator = deviceTypes.stream().filter(t -> !t.equals("cpu")).findFirst().orElse("cuda");
        b.runtimeDeviceType(accelerator);
        Map<Long, String> typeOfPid = new HashMap<>();
        for (int row = 0; row < devicePids.size(); row++) {
            long pid = devicePids.get(row);
            String type = typeOfPid.computeIfAbsent(pid, x -> deviceTypeOf(x, accelerator));
            b.deviceType(row, type);
        }
        if (rank >= 0) {
            b.metadata("rank", Integer.toString(rank));
            b.metadata("world_size", Integer.toString(worldSize));
        }
        if (backend != null && !backend.equals("none")) {
            b.metadata("distributed_backend", backend);
        }
        b.process(processName == null ? "python" : processName, Math.max(0, processId));
    }

    private static long numeric(String text) {
        return text.matches("\\d{1,18}") ? Long.parseLong(text) : -1;
    }

    /** A device process's type: its name's when the trace's device properties know that type, else the trace's. */
    private String deviceTypeOf(long pid, String accelerator) {
        String name = processNames.get(pid);
        if (name != null) {
            Matcher m = DEVICE_PROCESS.matcher(name);
            if (m.matches() && deviceTypes.contains(m.group(1).toLowerCase(Locale.ROOT))) {
                return m.group(1).toLowerCase(Locale.ROOT);
            }
        }
        return accelerator;
    }

    private void events(JsonParser p) throws IOException {
        sawEvents = true;
        inEvents = true;
        JsonToken token;
        while ((token = p.nextToken()) == JsonToken.START_OBJECT) {
            inEvent = true;
            event(p);
            inEvent = false;
        }
        if (token != JsonToken.END_ARRAY) {
            throw repairs.refusal(offset(p), "an event is not a JSON object");
        }
        inEvents = false;
        eventsRead = true;
    }

    /** One event; the parser is on its {@code START_OBJECT} and is left on its {@code END_OBJECT}. */
    private void event(JsonParser p) throws IOException {
        char ph = 0;
        int cat = -1;
        int name = -1;
        long pid = Long.MIN_VALUE;
        long tid = Long.MIN_VALUE;
        long ts = Long.MIN_VALUE;
        long dur = 0;
        long id = Long.MIN_VALUE;
        boolean metadataName = false;
        String metaValue = null;
        EventArgs a = args.clear();
        int seenFields = 0;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            if (repaired == null) {
                // the repairing pass finds duplicate keys itself; here, a bit per field the reader reads
                int bit = fieldBit(field);
                if ((seenFields & bit) != 0) {
                    repairs.repaired(TraceRepairs.Kind.DUPLICATE_KEY, offset(p));
                }
                seenFields |= bit;
            }
            JsonToken value = p.nextToken();
            switch (field) {
                case "ph" -> ph = value == JsonToken.VALUE_STRING && p.getTextLength() > 0
                        ? p.getTextCharacters()[p.getTextOffset()] : 0;
                case "cat" -> {
                    if (value == JsonToken.VALUE_STRING) {
                        cat = categories.intern(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
                        a.keepOthers = a.keepOthers || isDevice(kind(cat)) || kind(cat) == SYNC;
                    } else {
                        p.skipChildren();
                    }
                }
                case "name" -> {
                    if (value == JsonToken.VALUE_STRING) {
                        name = names.intern(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
                        a.keepOthers = a.keepOthers || (flags(name) & 2) != 0;
                    } else {
                        p.skipChildren();
                    }
                }
                case "pid" -> pid = ident(p, value);
                case "tid" -> tid = ident(p, value);
                case "ts" -> ts = time(p, value);
                case "dur" -> dur = time(p, value);
                case "id" -> id = value == JsonToken.VALUE_NUMBER_INT ? EventArgs.longValue(p, Long.MIN_VALUE)
                        : ident(p, value);
                case "args" -> {
                    if (value != JsonToken.START_OBJECT) {
                        p.skipChildren();
                    } else if (ph == 'M') {
                        metaValue = metadataArgs(p);
                        metadataName = true;
                    } else {
                        a.read(p);
                    }
                }
                default -> p.skipChildren();
            }
        }
        if (timeDamaged) {
            // counted where its time was read
            timeDamaged = false;
            return;
        }
        int catId = cat < 0 ? categories.intern("") : cat;
        countCategory(catId);
        if (ph == 'M') {
            if (metadataName && metaValue != null && name >= 0) {
                metadata(names.get(name), pid, tid, metaValue);
            }
            return;
        }
        if (ts == Long.MIN_VALUE) {
            return;
        }
        if (ph == 's' || ph == 'f') {
            String category = categories.get(catId);
            if (category.startsWith("cpu_to_") && id != Long.MIN_VALUE) {
                // the legacy format's launch flows: the start on the op's thread at its start, the end at the device
                // work written right after it
                if (ph == 's') {
                    b.flowStart(id, thread(pid, tid), ts);
                } else {
                    pendingFlow = id;
                    pendingFlowTime = ts;
                }
            }
            return;
        }
        record(ph, catId, name, pid, tid, ts, dur, a);
    }

    /**
     * A bit per field an event's reading takes, 0 for the others (whose repeats do not matter to it). Jackson interns
     * field names ({@code JsonFactory.Feature.INTERN_FIELD_NAMES}, on in the reader's factory), so a name is compared
     * by identity: no hashing per field on the reading's hot path.
     */
    @SuppressWarnings("StringEquality")
    private static int fieldBit(String field) {
        if (field == "ph") {
            return 1;
        } else if (field == "cat") {
            return 2;
        } else if (field == "name") {
            return 4;
        } else if (field == "pid") {
            return 8;
        } else if (field == "tid") {
            return 16;
        } else if (field == "ts") {
            return 32;
        } else if (field == "dur") {
            return 64;
        } else if (field == "id") {
            return 128;
        } else if (field == "args") {
            return 256;
        }
        return 0;
    }

    /**
     * What an event means, whichever format it was read from: a complete event ({@code 'X'}) becomes a host event on
     * its thread, a runtime call or device work; an instant ({@code 'i'}) named {@code [memory]} or
     * {@code [OutOfMemory]} a memory event; anything else is ignored. The category was counted by the caller.
     *
     * @param catId the interned category ({@code ""} for none)
     * @param name the interned name, or -1 for none
     * @param pid the process: a number, or {@link #textIdent} of a text
     * @param tid the thread or stream, likewise
     * @param ts the start in nanoseconds relative to the base time
     * @param dur the duration in nanoseconds
     */
    void record(char ph, int catId, int name, long pid, long tid, long ts, long dur, EventArgs a) {
        String nameText = name < 0 ? "" : names.get(name);
        if (ph == 'i' || ph == 'I') {
            boolean oom = nameText.equals("[OutOfMemory]");
            if ((oom || nameText.equals("[memory]")) && a.deviceType != Integer.MIN_VALUE) {
                String type = DeviceNames.deviceType(a.deviceType, privateUse1());
                b.memory(thread(pid, tid), oom ? EventKind.OUT_OF_MEMORY : EventKind.MEMORY, ts, type,
                        Math.max(0, a.deviceId), a.address, a.bytes, a.totalAllocated, a.totalReserved, a.category);
                events++;
            }
            return;
        }
        if (ph != 'X') {
            return;
        }
        if (name < 0) {
            name = names.intern("");
        }
        byte kind = kind(catId);
        if (kind == SKIP) {
            return;
        }
        if (kind == SYNC) {
            sync(nameText, pid, ts, dur, a);
            return;
        }
        if (kind == NONE) {
            // no category: the legacy format; its device work is on "<TYPE> functions" pids other than the CPU's
            String pidText = text(pid);
            if (pidText != null && pidText.endsWith(" functions") && !pidText.equals("CPU functions")) {
                kind = KERNEL;
                String type = pidText.substring(0, pidText.length() - " functions".length()).toLowerCase(Locale.ROOT);
                if (!deviceTypes.contains(type)) {
                    deviceTypes.add(type);
                }
            } else if (format.equals("legacy")) {
                kind = OP;
            } else {
                kind = UNKNOWN;
            }
        }
        if (kind == UNKNOWN) {
            unknownEvents++;
            kind = OTHER_HOST;
        }
        events++;
        dur = Math.max(0, dur);
        if (isDevice(kind)) {
            device(kind, name, pid, tid, ts, dur, a);
            return;
        }
        if (kind == GC) {
            b.device(EventKind.GC, nameText, "cpu", 0, -1, ts, dur, tid, Long.MIN_VALUE, Long.MIN_VALUE, Map.of());
            devicePids.add(Long.MIN_VALUE);
            return;
        }
        int thread = thread(pid, tid);
        EventKind k = kind == OP ? EventKind.CPU_OP : kind == RUNTIME || kind == DRIVER ? EventKind.RUNTIME
                : EventKind.USER_ANNOTATION;
        int row = b.host(thread, ts, dur, name, k, a.externalId, a.correlation, a.sequence, a.forwardThread,
                a.shapes, a.types, a.callStack);
        if (kind == DRIVER) {
            b.driverCall(thread, row);
        }
        if (a.iteration != Long.MIN_VALUE && k != EventKind.RUNTIME) {
            b.iteration(a.iteration, ts, ts + dur);
        }
        if (!a.others.isEmpty() && (flags(name) & 2) != 0) {
            // a collective's arguments: its message size, its group, as the profile wrote them
            b.hostArgs(thread, row, a.others);
        }
    }

    private void device(byte kind, int name, long pid, long tid, long ts, long dur, EventArgs a) {
        int deviceIndex = a.device >= 0 ? a.device : pid >= 0 && pid < 1 << 16 ? (int) pid : 0;
        if (format.equals("legacy") && tid >= 0) {
            deviceIndex = (int) tid;
        }
        long stream = a.stream >= 0 ? a.stream : tid >= 0 ? tid : streamOf(tid);
        long correlation = a.correlation;
        if (correlation == Long.MIN_VALUE && pendingFlow != Long.MIN_VALUE && pendingFlowTime == ts) {
            correlation = pendingFlow;
            pendingFlow = Long.MIN_VALUE;
        }
        EventKind k = kind == MEMCPY ? EventKind.GPU_MEMCPY : kind == MEMSET ? EventKind.GPU_MEMSET : EventKind.KERNEL;
        b.device(k, names.get(name), "", deviceIndex, stream, ts, dur, -1, a.externalId, correlation, a.others);
        devicePids.add(format.equals("legacy") ? Long.MIN_VALUE : pid);
    }

    /** A synchronisation the device recorded, with the event and stream it waited on when it names them. */
    private void sync(String name, long pid, long ts, long dur, EventArgs a) {
        int deviceIndex = a.device >= 0 ? a.device : pid >= 0 && pid < 1 << 16 ? (int) pid : 0;
        b.sync(new DeviceSync(name, deviceIndex, a.stream, ts, ts + Math.max(0, dur),
                a.correlation == Long.MIN_VALUE ? -1 : a.correlation, number(a.others.get("wait_on_stream")),
                number(a.others.get("wait_on_cuda_event_record_corr_id"))));
    }

    private static long number(String text) {
        if (text == null) {
            return -1;
        }
        try {
            return Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** What {@code PrivateUse1} is in this trace: its first accelerator type other than CUDA's and MPS's. */
    private String privateUse1() {
        return deviceTypes.stream().filter(t -> !t.equals("cpu") && !t.equals("cuda") && !t.equals("mps"))
                .findFirst().orElse("privateuse1");
    }

    /** Whether an event keeps its other arguments: device work's facts, a collective op's arguments. */
    boolean keepsArgs(int catId, int name) {
        return isDevice(kind(catId)) || kind(catId) == SYNC || (flags(name) & 2) != 0;
    }

    /** Whether events of this category are device work (kernels, copies, fills). */
    boolean isDeviceCategory(int catId) {
        return isDevice(kind(catId));
    }

    /** Whether events of this category are device runtime or driver calls. */
    boolean isRuntimeCategory(int catId) {
        byte k = kind(catId);
        return k == RUNTIME || k == DRIVER;
    }

    private static boolean isDevice(byte kind) {
        return kind >= KERNEL && kind <= MEMSET;
    }

    /** The flags of a name ({@link #nameFlags}), worked out the first time the name is seen. */
    private int flags(int name) {
        if (name >= nameFlags.length) {
            nameFlags = Arrays.copyOf(nameFlags, Math.max(name + 1, nameFlags.length * 2));
        }
        byte f = nameFlags[name];
        if (f == 0) {
            f = (byte) (DeviceNames.isCollectiveOp(names.get(name)) ? 3 : 1);
            nameFlags[name] = f;
        }
        return f;
    }

    /** The stream of an old trace's string tid such as {@code "stream 7"}, or 0. */
    private long streamOf(long tid) {
        String text = text(tid);
        if (text != null) {
            int i = text.length();
            while (i > 0 && Character.isDigit(text.charAt(i - 1))) {
                i--;
            }
            if (i < text.length() && text.length() - i < 18) {
                return Long.parseLong(text.substring(i));
            }
        }
        return 0;
    }

    /** Interns a category, for a reader that has its text. */
    int category(String text) {
        return categories.intern(text);
    }

    /** Interns a name, for a reader that has its text. */
    int name(String text) {
        return names.intern(text);
    }

    private byte kind(int catId) {
        if (catId >= kindOfCategory.length) {
            kindOfCategory = Arrays.copyOf(kindOfCategory, Math.max(catId + 1, kindOfCategory.length * 2));
        }
        byte k = kindOfCategory[catId];
        if (k == 0 && !(catId < seen.length && seen[catId])) {
            k = classify(categories.get(catId).toLowerCase(Locale.ROOT));
            kindOfCategory[catId] = k;
            if (catId >= seen.length) {
                seen = Arrays.copyOf(seen, Math.max(catId + 1, seen.length * 2));
            }
            seen[catId] = true;
        }
        return k;
    }

    private static byte classify(String cat) {
        switch (cat) {
            case "":
                return NONE;
            case "cpu_op", "operator":
                return OP;
            case "user_annotation":
                return ANNOTATION;
            case "kernel":
                return KERNEL;
            case "gpu_memcpy", "memcpy":
                return MEMCPY;
            case "gpu_memset", "memset":
                return MEMSET;
            case "gc":
                return GC;
            case "cuda_sync":
                return SYNC;
            case "python_function", "python":
                return OTHER_HOST;
            // known, and of no use to the views: device-side annotations and syncs, the profiler's own spans,
            // overhead rows, counters
            case "trace", "gpu_user_annotation", "xpu_sync", "cuda_event", "overhead",
                    "cuda_profiler_range", "hardware_counters", "mtia_ccp_events", "mtia_insight", "mtia_counters",
                    "xpu_scope_profiler", "external_correlation", "cpu_instant_event", "collective_comm":
                return SKIP;
            default:
                if (cat.equals("runtime") || cat.endsWith("_runtime")) {
                    return RUNTIME;
                }
                if (cat.endsWith("_driver")) {
                    return DRIVER;
                }
                return UNKNOWN;
        }
    }

    /** Counts an event of a category, as written. */
    void countCategory(int catId) {
        if (catId >= categoryCounts.length) {
            categoryCounts = Arrays.copyOf(categoryCounts, Math.max(catId + 1, categoryCounts.length * 2));
        }
        categoryCounts[catId]++;
    }

    /**
     * A pid or tid: its value when it is a whole number (also written as a string of digits), else
     * {@code -2 - id} of the interned text (so every text is below -1).
     */
    private long ident(JsonParser p, JsonToken value) throws IOException {
        if (value == JsonToken.VALUE_NUMBER_INT) {
            return numberIdent(EventArgs.longValue(p, -1));
        }
        if (value == JsonToken.VALUE_STRING) {
            char[] c = p.getTextCharacters();
            int off = p.getTextOffset();
            int len = p.getTextLength();
            if (len > 0 && len < 18) {
                long v = 0;
                int i = 0;
                for (; i < len && c[off + i] >= '0' && c[off + i] <= '9'; i++) {
                    v = v * 10 + (c[off + i] - '0');
                }
                if (i == len) {
                    return v;
                }
            }
            return -2L - idents.intern(c, off, len);
        }
        p.skipChildren();
        return -1;
    }

    /**
     * A pid or tid given as a number, as every reader hands it over: a negative one by its absolute value, since the
     * values below -1 stand for a text ({@link #textIdent}).
     */
    static long numberIdent(long v) {
        return v < 0 ? (v == Long.MIN_VALUE ? Long.MAX_VALUE : -v) : v;
    }

    /** A pid or tid given as text (a track's name, say), as {@link #ident} reads one: {@code -2 - id}. */
    long textIdent(String text) {
        return -2L - idents.intern(text);
    }

    private String identText(long ident) {
        String text = text(ident);
        return text != null ? text : ident == Long.MIN_VALUE ? "" : Long.toString(ident);
    }

    /** The text of a pid or tid that {@link #ident} read as text, or null for a number or none. */
    private String text(long ident) {
        return ident < -1 && ident != Long.MIN_VALUE ? idents.get((int) (-ident - 2)) : null;
    }

    /** The thread of a pid and tid. */
    private int thread(long pid, long tid) {
        if (pid == lastPid && tid == lastTid && lastThread >= 0) {
            return lastThread;
        }
        String key = identText(pid) + "/" + identText(tid);
        lastThread = b.thread(key, tid >= 0 ? tid : -1);
        lastPid = pid;
        lastTid = tid;
        return lastThread;
    }

    private String metadataArgs(JsonParser p) throws IOException {
        String value = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken v = p.nextToken();
            if ((field.equals("name") || field.equals("labels")) && v == JsonToken.VALUE_STRING) {
                value = p.getText();
            } else {
                p.skipChildren();
            }
        }
        return value;
    }

    void metadata(String what, long pid, long tid, String value) {
        if (what.equals("thread_name")) {
            String key = identText(pid) + "/" + identText(tid);
            threadNames.put(key, value);
        } else if (what.equals("process_name")) {
            processNames.put(pid, value);
            if (processName == null && pid >= 0 && !DEVICE_PROCESS.matcher(value).matches()) {
                processName = value;
                processId = pid;
            }
        } else if (what.equals("process_labels") && DEVICE_PROCESS.matcher(value).matches()) {
            processNames.put(pid, value);
        }
    }

    void distributedInfo(JsonParser p) throws IOException {
        if (p.currentToken() != JsonToken.START_OBJECT) {
            p.skipChildren();
            return;
        }
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            switch (field) {
                case "rank" -> rank = smallInt(p, -1);
                case "world_size" -> worldSize = Math.max(1, smallInt(p, 1));
                case "backend" -> backend = p.currentToken() == JsonToken.VALUE_STRING ? p.getText() : null;
                default -> p.skipChildren();
            }
        }
    }

    /** A rank or world size: a whole number from 0 to 2^24, also written as a string; else {@code absent}. */
    private static int smallInt(JsonParser p, int absent) throws IOException {
        JsonToken v = p.currentToken();
        long n;
        if (v == JsonToken.VALUE_NUMBER_INT) {
            n = EventArgs.longValue(p, -1);
        } else if (v == JsonToken.VALUE_STRING) {
            try {
                n = Long.parseLong(p.getText().strip());
            } catch (NumberFormatException e) {
                n = -1;
            }
        } else {
            p.skipChildren();
            n = -1;
        }
        return n >= 0 && n <= 1 << 24 ? (int) n : absent;
    }

    void deviceProperties(JsonParser p) throws IOException {
        if (p.currentToken() != JsonToken.START_ARRAY) {
            p.skipChildren();
            return;
        }
        while (p.nextToken() == JsonToken.START_OBJECT) {
            String type = null;
            int id = 0;
            boolean emulated = false;
            Map<String, String> properties = new LinkedHashMap<>();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken v = p.nextToken();
                switch (field) {
                    case "type" -> type = v == JsonToken.VALUE_STRING ? p.getText() : null;
                    case "id" -> id = p.getValueAsInt(0);
                    case "emulated" -> emulated = v == JsonToken.VALUE_TRUE;
                    default -> {
                        if (v.isScalarValue()) {
                            properties.put(field, p.getText());
                        } else {
                            p.skipChildren();
                        }
                    }
                }
            }
            // Kineto's GPUs (CUDA and ROCm, which torch calls cuda too) carry no type
            String t = type == null ? "cuda" : type;
            if (!deviceTypes.contains(t)) {
                deviceTypes.add(t);
            }
            b.deviceInfo(new TraceDevice(t, Math.max(0, id), emulated, properties));
        }
    }

    /**
     * An event's time. One that is not a number of microseconds ({@code "10$0"}, or past a {@code long}) has no one
     * reading: its event is skipped and counted as damaged, with its byte offset, or the file is refused with that
     * offset under {@code --strict} (found by fuzzing: the refusal named neither the file nor the offset).
     */
    private long time(JsonParser p, JsonToken token) throws IOException {
        try {
            return nanos(p, token);
        } catch (com.fasterxml.jackson.core.JacksonException e) {
            throw e;
        } catch (DamagedTraceException e) {
            throw e;
        } catch (IOException e) {
            repairs.skipped(TraceRepairs.Kind.DAMAGED_EVENT, offset(p));
            timeDamaged = true;
            return Long.MIN_VALUE;
        }
    }

    /**
     * Reads a time in microseconds, as Kineto writes them (a number, up to three decimals), as nanoseconds: exact
     * for up to three decimals, rounded half-even beyond. From the parser's characters, without a string.
     */
    static long nanos(JsonParser p, JsonToken token) throws IOException {
        if (token != JsonToken.VALUE_NUMBER_INT && token != JsonToken.VALUE_NUMBER_FLOAT
                && token != JsonToken.VALUE_STRING) {
            p.skipChildren();
            return Long.MIN_VALUE;
        }
        char[] c = p.getTextCharacters();
        int off = p.getTextOffset();
        int len = p.getTextLength();
        long whole = 0;
        int i = 0;
        boolean negative = len > 0 && c[off] == '-';
        if (negative) {
            i++;
        }
        int digits = 0;
        for (; i < len && c[off + i] >= '0' && c[off + i] <= '9'; i++, digits++) {
            whole = whole * 10 + (c[off + i] - '0');
        }
        long frac = 0;
        int fracDigits = 0;
        if (i < len && c[off + i] == '.') {
            i++;
            for (; i < len && c[off + i] >= '0' && c[off + i] <= '9' && fracDigits < 3; i++, fracDigits++) {
                frac = frac * 10 + (c[off + i] - '0');
            }
        }
        if (i < len || digits == 0 || digits > 16 || whole > Long.MAX_VALUE / 1000 - 1) {
            // more than three decimals, an exponent, or text: the exact path
            return TraceReader.nanos(new String(c, off, len));
        }
        for (int k = fracDigits; k < 3; k++) {
            frac *= 10;
        }
        long n = whole * 1000 + frac;
        return negative ? -n : n;
    }
}
