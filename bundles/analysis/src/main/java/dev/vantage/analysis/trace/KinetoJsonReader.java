package dev.vantage.analysis.trace;

import java.io.IOException;
import java.util.Arrays;
import java.util.Locale;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import dev.vantage.profiler.trace.StepRule;

/**
 * Fills {@link TraceColumns} from a Chrome trace as torch has written it since 1.8: Kineto's JSON object (every
 * schema version: absolute integer microseconds of 2021, fractional nanoseconds since 2024, times relative to
 * {@code baseTimeNanoseconds} since mid-2024; the 2021 categories {@code Operator}, {@code Runtime}, {@code Kernel},
 * {@code Memcpy}, {@code Memset}, string tids such as {@code "stream 7"}, lower-case {@code external id}; CUDA and
 * ROCm runtime names; CUDA graphs' kernels, which are kernels like any other), and the legacy array torch writes
 * without Kineto ({@code pid: "CPU functions"}, microseconds from the profiler's start, device work on
 * {@code "CUDA functions"} joined to its operator by {@code cpu_to_cuda} flows).
 *
 * <p>One pass of Jackson's streaming parser, never a tree of the document: names are interned straight from the
 * parser's buffer and times parsed from its characters, so an event whose strings were seen before creates no
 * object. Unknown categories are kept as host events and counted; a category the views have no use for
 * ({@code gpu_user_annotation}, {@code cuda_sync}, flows, metadata) is counted and skipped.
 */
final class KinetoJsonReader {

    // what a category means to the reader, decided once per category
    private static final byte SKIP = -1;
    private static final byte UNKNOWN = -2;
    private static final byte NONE = -3;

    private final TraceColumns t;
    private final EventArgs args;
    private byte[] kindOfCategory = new byte[16];
    private final Interner idents = new Interner();
    // the last thread looked up, by pid and tid as read
    private long lastPid = Long.MIN_VALUE;
    private long lastTid = Long.MIN_VALUE;
    private int lastThread = -1;
    // the legacy format's last flow end: the device work written right after it is the flow's
    private long pendingFlow = Long.MIN_VALUE;
    private long pendingFlowTime = Long.MIN_VALUE;
    private long[] categoryCounts = new long[16];
    /** Per name id: 1 = looked at, 2 = a collective operator's name, 4 = a communication kernel's name. */
    private byte[] nameFlags = new byte[256];

    /** Where damage is counted, or refused. */
    private final TraceRepairs repairs;
    /** The repairing pass's stream, which maps offsets back to the file's and finds duplicate keys itself; or null. */
    private final JsonRepairStream repaired;
    /** Per thread, the row of an event whose offset is wanted ({@link #probe}), or null when none is. */
    private int[] probe;
    private long eventStart;
    // where the reading is, for a file that ends too soon
    private boolean inEvents;
    private boolean inEvent;
    private boolean eventsRead;

    /** A reader for the {@code .pftrace} reader, which gives events one at a time through {@link #record}. */
    KinetoJsonReader(TraceColumns columns) {
        this(columns, new TraceRepairs(false), null);
    }

    /**
     * @param repairs the account of what the file needed
     * @param repaired the repairing pass's stream the parser reads, or null when it reads the file itself
     */
    KinetoJsonReader(TraceColumns columns, TraceRepairs repairs, JsonRepairStream repaired) {
        this.t = columns;
        this.args = columns.args;
        this.repairs = repairs;
        this.repaired = repaired;
    }

    /**
     * The file ended before the JSON did (a killed writer, a gzip file cut short): what was read is kept. An event
     * cut off is skipped; the end of torch's array between events is allowed by the Trace Event Format; Kineto's
     * object left open is closed. Call instead of {@link #finish()}.
     *
     * @param offset where the file ended
     */
    void cutOff(long offset) throws IOException {
        if (inEvent) {
            repairs.skipped(TraceRepairs.Kind.CUT_OFF, offset);
        } else if (!(inEvents && t.format.equals("legacy"))) {
            repairs.repaired(TraceRepairs.Kind.UNCLOSED, offset);
        }
        if (!eventsRead && !inEvents) {
            throw repairs.refusal(offset, "the file ends before its traceEvents");
        }
        finish();
    }

    /** Thrown by a probing reader at the event it looks for: the byte offset where that event starts. */
    static final class Found extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final long offset;

        Found(long offset) {
            super(null, null, false, false);
            this.offset = offset;
        }
    }

    /**
     * Makes this reader stop at the first of some host events in file order, with {@link Found}.
     *
     * @param rows per thread, the row (the position among the thread's events) of the event wanted, or -1
     * @return this reader
     */
    KinetoJsonReader probe(int[] rows) {
        this.probe = rows;
        return this;
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
            t.format = "legacy";
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
                        t.baseNanos = value == JsonToken.VALUE_NUMBER_INT ? EventArgs.longValue(p, 0)
                                : p.getValueAsLong();
                        t.metadata.put(field, p.getText());
                    }
                    default -> {
                        if (value.isScalarValue()) {
                            t.metadata.put(field, p.getText());
                        } else {
                            p.skipChildren();
                        }
                    }
                }
            }
        } else {
            throw repairs.refusal(offset(p), "it is not a JSON object or array");
        }
        finish();
    }

    /** Adds the counts of the categories to the columns, once every event was read. */
    void finish() {
        for (int id = 0; id < t.categories.size(); id++) {
            if (id < categoryCounts.length && categoryCounts[id] > 0) {
                t.categoryCounts.put(t.categories.get(id), categoryCounts[id]);
            }
        }
    }

    private void events(JsonParser p) throws IOException {
        t.sawEvents = true;
        inEvents = true;
        JsonToken token;
        while ((token = p.nextToken()) == JsonToken.START_OBJECT) {
            if (probe != null) {
                eventStart = offset(p);
            }
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
        int seen = 0;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            if (repaired == null) {
                // the repairing pass finds duplicate keys itself; here, a bit per field the reader reads
                int bit = fieldBit(field);
                if ((seen & bit) != 0) {
                    repairs.repaired(TraceRepairs.Kind.DUPLICATE_KEY, offset(p));
                }
                seen |= bit;
            }
            JsonToken value = p.nextToken();
            switch (field) {
                case "ph" -> ph = value == JsonToken.VALUE_STRING && p.getTextLength() > 0
                        ? p.getTextCharacters()[p.getTextOffset()] : 0;
                case "cat" -> cat = value == JsonToken.VALUE_STRING
                        ? t.categories.intern(p.getTextCharacters(), p.getTextOffset(), p.getTextLength()) : skip(p);
                case "name" -> {
                    if (value == JsonToken.VALUE_STRING) {
                        name = t.names.intern(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
                        a.wantInputBytes = (flags(name) & 2) != 0;
                    } else {
                        p.skipChildren();
                    }
                }
                case "pid" -> pid = ident(p, value);
                case "tid" -> tid = ident(p, value);
                case "ts" -> ts = nanos(p, value);
                case "dur" -> dur = nanos(p, value);
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
        String category = cat < 0 ? "" : t.categories.get(cat);
        int catId = cat < 0 ? t.categories.intern("") : cat;
        countCategory(catId);
        if (ph == 'M') {
            if (metadataName && metaValue != null && name >= 0) {
                metadata(t.names.get(name), pid, tid, metaValue);
            }
            return;
        }
        if (ts == Long.MIN_VALUE) {
            return;
        }
        if (ph == 's' || ph == 'f') {
            if (category.startsWith("cpu_to_") && id != Long.MIN_VALUE) {
                // the legacy format's launch flows: the start on the operator's thread at its start, the end at
                // the device work written right after it
                if (ph == 's') {
                    t.flowThread.put(id, thread(pid, tid));
                    t.flowTime.put(id, ts);
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
     * What an event means to the views, whichever format it was read from: a complete event ({@code 'X'}) becomes
     * a host event on its thread or device work, an instant ({@code 'i'}) named {@code [memory]} a memory event;
     * anything else is ignored. The category was counted by the caller.
     *
     * @param catId the interned category ({@code ""} for none)
     * @param name the interned name, or -1 for none
     * @param pid the process: a number, or {@link #textIdent} of a text
     * @param tid the thread or stream, likewise
     * @param ts the start in nanoseconds relative to the base time
     * @param dur the duration in nanoseconds
     * @param a the event's arguments
     */
    void record(char ph, int catId, int name, long pid, long tid, long ts, long dur, EventArgs a) {
        String nameText = name < 0 ? "" : t.names.get(name);
        if (ph == 'i' || ph == 'I') {
            if (nameText.equals("[memory]") && a.deviceType != Integer.MIN_VALUE) {
                int thread = thread(pid, tid);
                t.memory.add(ts, a.deviceType, a.deviceId, thread, a.bytes, a.address, a.totalAllocated,
                        a.totalReserved);
                t.events++;
            }
            return;
        }
        if (ph != 'X') {
            return;
        }
        if (name < 0) {
            name = t.names.intern("");
        }
        byte kind = kind(catId);
        if (kind == SKIP) {
            return;
        }
        if (kind == NONE) {
            // no category: the legacy format; its device work is on "<TYPE> functions" pids other than the CPU's
            String pidText = text(pid);
            if (pidText != null && pidText.endsWith(" functions") && !pidText.equals("CPU functions")) {
                kind = EventColumns.KERNEL;
                String type = pidText.substring(0, pidText.length() - " functions".length()).toLowerCase(Locale.ROOT);
                if (!t.deviceTypes.contains(type)) {
                    t.deviceTypes.add(type);
                }
            } else if (t.format.equals("legacy")) {
                kind = EventColumns.OP;
            } else {
                kind = UNKNOWN;
            }
        }
        if (kind == UNKNOWN) {
            t.unknownEvents++;
            kind = EventColumns.OTHER_HOST;
        }
        t.events++;
        dur = Math.max(0, dur);
        if (EventColumns.isDevice(kind)) {
            device(kind, name, pid, tid, ts, dur, a);
            return;
        }
        long step = StepRule.stepNumber(nameText);
        if (step >= 0) {
            kind = EventColumns.STEP;
        }
        int thread = thread(pid, tid);
        int shapes = a.shapesId(t.shapes);
        int row = t.threads.get(thread).add(ts, dur, a.externalId, a.correlation, a.sequence, name, shapes, catId,
                kind);
        if (probe != null && thread < probe.length && probe[thread] == row) {
            throw new Found(eventStart);
        }
        if (step >= 0) {
            t.step(step, ts, dur, thread);
        }
        if (a.iteration != Long.MIN_VALUE && kind != EventColumns.RUNTIME && kind != EventColumns.DRIVER) {
            t.iteration(a.iteration, ts, ts + dur);
        }
        if (a.wantInputBytes) {
            long bytes = a.messageBytes();
            t.hostCommBytes.put(((long) thread << 32) | row, bytes >= 0 ? bytes : a.inputBytes);
        }
    }

    private void device(byte kind, int name, long pid, long tid, long ts, long dur, EventArgs a) {
        int deviceIndex = a.device >= 0 ? a.device : pid >= 0 && pid < 1 << 16 ? (int) pid : 0;
        if (t.format.equals("legacy") && tid >= 0) {
            deviceIndex = (int) tid;
        }
        long stream = a.stream >= 0 ? a.stream : tid >= 0 ? tid : streamOf(tid);
        long correlation = a.correlation;
        if (correlation == Long.MIN_VALUE && pendingFlow != Long.MIN_VALUE && pendingFlowTime == ts) {
            correlation = pendingFlow;
            pendingFlow = Long.MIN_VALUE;
        }
        boolean communication = a.collective != null || (flags(name) & 4) != 0;
        byte k = communication && kind != EventColumns.MEMSET ? EventColumns.COMMUNICATION : kind;
        int row = t.device.add(ts, dur, a.externalId, correlation, stream, name, deviceIndex, 0, k);
        if (kind == EventColumns.KERNEL) {
            t.kernelLaunch(name, a, dur);
        }
        if (k == EventColumns.COMMUNICATION) {
            t.commRows.add(row);
            t.commNames.add(a.collective == null ? -1 : t.name(a.collective));
            t.commBytes.add(a.messageBytes());
        }
    }

    /** Whether the views want the message bytes of an event of this name: a collective operator's. */
    boolean wantsInputBytes(int name) {
        return (flags(name) & 2) != 0;
    }

    /** Whether events of this category are device work (kernels, copies, fills). */
    boolean isDeviceCategory(int catId) {
        return EventColumns.isDevice(kind(catId));
    }

    /** Whether events of this category are device runtime or driver calls. */
    boolean isRuntimeCategory(int catId) {
        byte k = kind(catId);
        return k == EventColumns.RUNTIME || k == EventColumns.DRIVER;
    }

    /** The flags of a name ({@link #nameFlags}), worked out the first time the name is seen. */
    private int flags(int name) {
        if (name >= nameFlags.length) {
            nameFlags = Arrays.copyOf(nameFlags, Math.max(name + 1, nameFlags.length * 2));
        }
        byte f = nameFlags[name];
        if (f == 0) {
            String n = t.names.get(name);
            f = 1;
            if (isCollective(n)) {
                f |= 2;
            }
            if (n.startsWith("hcom_") || containsIgnoreCase(n, "nccl") || containsIgnoreCase(n, "rccl")) {
                f |= 4;
            }
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

    /** Operators whose message size the communication view shows: c10d's carrier and the backends' annotations. */
    static boolean isCollective(String name) {
        return name.startsWith("nccl:") || name.startsWith("gloo:") || name.equals("record_param_comms");
    }

    private static boolean containsIgnoreCase(String text, String part) {
        return text.regionMatches(true, 0, part, 0, part.length()) || text.toLowerCase(Locale.ROOT).contains(part);
    }

    private byte kind(int catId) {
        if (catId >= kindOfCategory.length) {
            kindOfCategory = Arrays.copyOf(kindOfCategory, Math.max(catId + 1, kindOfCategory.length * 2));
        }
        byte k = kindOfCategory[catId];
        if (k == 0 && !(catId < seen.length && seen[catId])) {
            k = classify(t.categories.get(catId).toLowerCase(Locale.ROOT));
            kindOfCategory[catId] = k;
            if (catId >= seen.length) {
                seen = Arrays.copyOf(seen, Math.max(catId + 1, seen.length * 2));
            }
            seen[catId] = true;
        }
        return k;
    }

    private boolean[] seen = new boolean[16];

    private static byte classify(String cat) {
        switch (cat) {
            case "":
                return NONE;
            case "cpu_op", "operator":
                return EventColumns.OP;
            case "user_annotation":
                return EventColumns.ANNOTATION;
            case "kernel":
                return EventColumns.KERNEL;
            case "gpu_memcpy", "memcpy":
                return EventColumns.MEMCPY;
            case "gpu_memset", "memset":
                return EventColumns.MEMSET;
            case "gc", "python_function", "python":
                return EventColumns.OTHER_HOST;
            // known, and of no use to the views: device-side annotations and syncs, the profiler's own spans,
            // overhead rows, counters
            case "trace", "gpu_user_annotation", "cuda_sync", "xpu_sync", "cuda_event", "overhead",
                    "cuda_profiler_range", "hardware_counters", "mtia_ccp_events", "mtia_insight", "mtia_counters",
                    "xpu_scope_profiler", "external_correlation", "cpu_instant_event", "collective_comm":
                return SKIP;
            default:
                if (cat.equals("runtime") || cat.endsWith("_runtime")) {
                    return EventColumns.RUNTIME;
                }
                if (cat.endsWith("_driver")) {
                    return EventColumns.DRIVER;
                }
                return UNKNOWN;
        }
    }

    /** Counts an event of a category, as written; {@link #finish} adds the counts to the columns. */
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
            long v = EventArgs.longValue(p, -1);
            return v < 0 ? (v == Long.MIN_VALUE ? Long.MAX_VALUE : -v) : v;
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
        lastThread = t.thread(key, tid >= 0 ? tid : -1);
        lastPid = pid;
        lastTid = tid;
        return lastThread;
    }

    private String metadataArgs(JsonParser p) throws IOException {
        String value = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken v = p.nextToken();
            if (field.equals("name") && v == JsonToken.VALUE_STRING) {
                value = p.getText();
            } else {
                p.skipChildren();
            }
        }
        return value;
    }

    void metadata(String what, long pid, long tid, String value) {
        if (what.equals("thread_name")) {
            t.threadNames.put(identText(pid) + "/" + identText(tid), value);
        } else if (what.equals("process_name") && t.processName == null && pid >= 0) {
            t.processName = value;
            t.processId = pid;
        }
    }

    private static int skip(JsonParser p) throws IOException {
        p.skipChildren();
        return -1;
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
                case "rank" -> t.rank = smallInt(p, -1);
                case "world_size" -> t.worldSize = Math.max(1, smallInt(p, 1));
                case "backend" -> t.backend = p.currentToken() == JsonToken.VALUE_STRING ? p.getText() : null;
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
            boolean typed = false;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                p.nextToken();
                if (field.equals("type") && p.currentToken() == JsonToken.VALUE_STRING) {
                    t.deviceTypes.add(p.getText());
                    typed = true;
                } else {
                    p.skipChildren();
                }
            }
            if (!typed && !t.deviceTypes.contains("cuda")) {
                // Kineto's GPUs (CUDA and ROCm, which torch calls cuda too) carry no type
                t.deviceTypes.add("cuda");
            }
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
