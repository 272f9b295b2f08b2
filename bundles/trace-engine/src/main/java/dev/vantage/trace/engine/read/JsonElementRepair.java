package dev.vantage.trace.engine.read;

import java.util.Arrays;

/**
 * Reads one JSON value (an event of a trace, or a top-level member) from bytes in memory and writes it again as valid,
 * minified JSON, repairing what has one obvious reading ({@link TraceRepairs.Kind}): unescaped quotes inside strings,
 * keys without a value, {@code NaN}, unquoted text, control characters, invalid escapes and UTF-8, trailing and
 * missing commas, and names the event's duplicate keys. What has no reading fails the value ({@link #FAILED}), so that
 * {@link JsonRepairStream} skips it.
 *
 * <p>Design: a pushdown automaton with an explicit stack of containers, so that it can go on from any point of a
 * value with a copy of its state. A value is read first taking every quote as the end of its string, which is all a
 * sound value needs. When that fails, it is read again searching: at each quote of a string, the rest of the value
 * is read on from there as if the quote closed it; if the rest has no reading, the quote was one the writer did not
 * escape (kineto#1184: {@code "name": "{"device": "cpu"}(12): run"}), and the next quote is tried. The first
 * reading found keeps every string as short as it can be: the fewest quotes taken as the writer's. A search stops
 * after {@value #BUDGET} steps or {@value #MAX_BRANCHES} nested tries, and the value fails; all searches of a file
 * together take at most {@value #FIRST_ALLOWANCE} steps and {@value #SEARCH_PER_BYTE} per byte of the file
 * ({@link #allow}), so a file of damaged values costs time in proportion to its size, not to the number of values
 * times a search (found by fuzzing: a 228-byte file took 4.7 s, and a 3 KB one 1.4 s). While searching, text
 * without quotes and missing commas are not read as repairs: they are what a quote taken in the wrong place leaves.
 * Offsets are absolute: {@code base} plus the index in the array. Not thread-safe.
 */
final class JsonElementRepair {

    /** The value was read; {@link #end} is the index after it. */
    static final int OK = 0;
    /** The bytes ran out before the value ended, and more may come. */
    static final int NEED_MORE = 1;
    /** The input ended inside the value. */
    static final int END_OF_INPUT = 2;
    /** The value has no reading; {@link #end} is where it stopped making sense. */
    static final int FAILED = 3;

    /** How far past a string's first rejected quote the search for its closing quote goes. */
    static final int SCAN = 16 << 10;
    /** The steps (bytes looked at) one search may take. */
    static final int BUDGET = 1 << 24;
    /**
     * The steps all searches of a file may take, whatever its size: enough for the quotes of many damaged events
     * (a search that finds its reading takes a few times its value's bytes), small enough that a file of a few bytes
     * built to make every search fail reads in a fraction of a second even under a fuzzer's instrumentation (with
     * 1 Mi, the ONNX Runtime fuzz target's 228-byte findings took 3.6 and 4.6 s there, near its 10-s bound).
     */
    static final int FIRST_ALLOWANCE = 1 << 16;
    /** The steps all searches of a file may take for each byte of it, beyond {@link #FIRST_ALLOWANCE}. */
    static final int SEARCH_PER_BYTE = 64;
    /** How many tries a search may nest (strings read on from a quote taken as closing). */
    static final int MAX_BRANCHES = 400;
    /** What a string gives back when the rest of the value was read from one of its quotes: {@link #end} is set. */
    private static final int REST_DONE = 9;

    private static final byte OBJ = 1;
    private static final byte ARR = 2;

    // what the automaton expects next
    private static final int VALUE = 0;
    private static final int OBJ_FIRST = 1;
    private static final int OBJ_KEY = 2;
    private static final int OBJ_COLON = 3;
    private static final int OBJ_NEXT = 4;
    private static final int ARR_FIRST = 5;
    private static final int ARR_VALUE = 6;
    private static final int ARR_NEXT = 7;
    private static final int DONE = 8;

    private static final byte[] NULL = {'n', 'u', 'l', 'l'};
    /** The keys of an event in the Trace Event Format. */
    private static final java.util.Set<String> EVENT_KEYS = java.util.Set.of("name", "cat", "ph", "ts", "tts", "pid",
            "tid", "dur", "tdur", "args", "id", "id2", "bp", "s", "cname", "scope", "sf", "stack", "esf", "estack",
            "bind_id", "flow_in", "flow_out");
    private static final byte[] REPLACEMENT = {(byte) 0xEF, (byte) 0xBF, (byte) 0xBD};
    private static final byte[] HEX = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /** The repaired bytes of the last value read with output on. */
    byte[] out = new byte[1 << 12];
    int outLen;
    /** The repairs of the last value read with output on: kinds and offsets, in the order met. */
    TraceRepairs.Kind[] repairKinds = new TraceRepairs.Kind[16];
    long[] repairOffsets = new long[16];
    int repairs;
    /** The index after the value, or where it failed. */
    int end;

    private byte[] b;
    private int limit;
    private boolean eof;
    private long base;
    private int budget;
    /** The search steps the file still allows ({@link #allow}). */
    private long allowance = FIRST_ALLOWANCE;
    private int branches;
    // the run's state
    private byte[] stack = new byte[32];
    private int depth;
    private int state;
    private int stopDepth;
    /** Whether this is the second reading: quotes may be the writer's, text without quotes is no repair. */
    private boolean search;
    /** Whether each quote ends its string (the first reading, and the rest of a value tried as sound). */
    private boolean simple;
    /** Output positions of the keys of the outermost object: pairs of start and end. */
    private int[] keys = new int[32];
    private int keyCount;

    /**
     * Reads one value from {@code from}.
     *
     * @param bytes the input
     * @param from where the value starts (whitespace before it is skipped)
     * @param to the end of the bytes available
     * @param atEnd whether the input ends at {@code to}
     * @param offset the absolute offset of {@code bytes[0]}
     * @return {@link #OK}, {@link #NEED_MORE}, {@link #END_OF_INPUT} or {@link #FAILED}
     */
    int value(byte[] bytes, int from, int to, boolean atEnd, long offset) {
        start(bytes, to, atEnd, offset);
        stopDepth = 0;
        return twice(from);
    }

    /**
     * Reads one member of the object that holds the trace ({@code "key": value}) from {@code from}, which is after
     * the comma or brace before it.
     */
    int member(byte[] bytes, int from, int to, boolean atEnd, long offset) {
        start(bytes, to, atEnd, offset);
        stopDepth = 1;
        return twice(from);
    }

    /** Allows the searches {@value #SEARCH_PER_BYTE} more steps for each of {@code bytes} more bytes of the file. */
    void allow(long bytes) {
        allowance = Math.min(allowance + SEARCH_PER_BYTE * bytes, Long.MAX_VALUE >> 1);
    }

    /** Reads as a sound value; if that fails, again searching for the writer's unescaped quotes. */
    private int twice(int from) {
        for (int attempt = 0; attempt < 2; attempt++) {
            search = attempt == 1;
            simple = !search;
            outLen = 0;
            repairs = 0;
            keyCount = 0;
            int granted = search ? (int) Math.min(BUDGET, allowance) : Integer.MAX_VALUE;
            budget = granted;
            branches = 0;
            if (stopDepth == 0) {
                depth = 0;
                state = VALUE;
            } else {
                stack[0] = OBJ;
                depth = 1;
                state = OBJ_KEY;
            }
            int r = run(from);
            if (search) {
                allowance -= granted - Math.max(budget, 0);
            }
            if (r != FAILED) {
                return r;
            }
        }
        return FAILED;
    }

    private void start(byte[] bytes, int to, boolean atEnd, long offset) {
        b = bytes;
        limit = to;
        eof = atEnd;
        base = offset;
        outLen = 0;
        repairs = 0;
        keyCount = 0;
    }

    /** Runs the automaton from {@code p} with the current state, to the end of the value. */
    private int run(int p) {
        while (true) {
            if (state == DONE || (stopDepth == 1 && depth == 1 && state == OBJ_NEXT)) {
                end = p;
                return follows(p);
            }
            if (--budget < 0) {
                return fail(p);
            }
            p = skipSpace(p);
            if (p >= limit) {
                end = p;
                return eof ? END_OF_INPUT : NEED_MORE;
            }
            byte c = b[p];
            switch (state) {
                case VALUE, ARR_FIRST, ARR_VALUE -> {
                    if (c == ']' && state != VALUE) {
                        if (state == ARR_VALUE && !repair(TraceRepairs.Kind.TRAILING_COMMA, p)) {
                            return fail(p);
                        }
                        if (state == ARR_VALUE) {
                            outLen--; // the comma, the last byte written: no whitespace is written
                        }
                        put(']');
                        p++;
                        closed();
                        continue;
                    }
                    if (c == ',' || c == '}' || c == ']') {
                        // no value where one goes: "key": , (pytorch#172353) or [1, , 2]
                        if (state == ARR_FIRST || c == ']' || (c == '}' && !inObject()) || depth == 0) {
                            return fail(p);
                        }
                        if (!repair(TraceRepairs.Kind.MISSING_VALUE, p)) {
                            return fail(p);
                        }
                        put(NULL);
                        valueDone();
                        continue;
                    }
                    int next = scalarOrOpen(p);
                    if (next < 0) {
                        return mark(next, p);
                    }
                    p = next;
                }
                case OBJ_FIRST, OBJ_KEY -> {
                    if (c == '}') {
                        if (state == OBJ_KEY) {
                            if (!repair(TraceRepairs.Kind.TRAILING_COMMA, p)) {
                                return fail(p);
                            }
                            outLen--;
                        }
                        put('}');
                        p++;
                        closed();
                        continue;
                    }
                    if (c != '"') {
                        return fail(p);
                    }
                    int keyStart = outLen;
                    boolean first = depth == 1 && stopDepth == 0;
                    int next = string(p, true, first ? keyStart : -1);
                    if (next < 0) {
                        return mark(next, p);
                    }
                    p = next;
                    state = OBJ_COLON;
                }
                case OBJ_COLON -> {
                    if (c != ':') {
                        return fail(p);
                    }
                    put(':');
                    p++;
                    state = VALUE;
                }
                case OBJ_NEXT, ARR_NEXT -> {
                    boolean object = state == OBJ_NEXT;
                    if (c == ',') {
                        put(',');
                        p++;
                        state = object ? OBJ_KEY : ARR_VALUE;
                    } else if (c == (object ? '}' : ']')) {
                        put(c);
                        p++;
                        closed();
                    } else if (object ? c == '"' : startsValue(c)) {
                        // two values without the comma between them
                        if (search || !repair(TraceRepairs.Kind.MISSING_COMMA, p)) {
                            return fail(p);
                        }
                        put(',');
                        state = object ? OBJ_KEY : ARR_VALUE;
                    } else {
                        return fail(p);
                    }
                }
                default -> throw new IllegalStateException("state " + state);
            }
        }
    }

    private static final int NEED_MORE_MARK = 7;

    /** What a negative mark from {@link #string} or {@link #scalarOrOpen} means for the run. */
    private int mark(int next, int p) {
        int m = -next - 1;
        if (m == NEED_MORE_MARK) {
            return need(p);
        }
        if (m == REST_DONE) {
            return OK;
        }
        return fail(end);
    }

    /**
     * After the value ended at {@code p}: what follows must be what follows a value there, or the end of the input
     * (kineto#1184's quote taken as closing too early ends the event, and then {@code (12): run"} follows it).
     */
    private int follows(int p) {
        int f = skipSpace(p);
        if (f >= limit) {
            return eof ? OK : NEED_MORE;
        }
        if (b[f] == ',' || b[f] == (stopDepth == 0 ? ']' : '}')) {
            return OK;
        }
        end = f;
        return FAILED;
    }

    /** Whether the value being read is a member's value (an object is open at the current depth). */
    private boolean inObject() {
        return depth > 0 && stack[depth - 1] == OBJ;
    }

    private int need(int p) {
        end = p;
        return eof ? END_OF_INPUT : NEED_MORE;
    }

    private int fail(int p) {
        end = p;
        return FAILED;
    }

    private static boolean startsValue(byte c) {
        return c == '{' || c == '[' || c == '"' || c == '-' || (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z')
                || (c >= 'a' && c <= 'z');
    }

    /**
     * A value at {@code p}: opens a container, or reads a string, number or literal whole. Returns the index after
     * what it read, or {@code -1 - NEED_MORE_MARK} when the bytes ran out, or {@code -1 - FAILED} with {@link #end}
     * set.
     */
    private int scalarOrOpen(int p) {
        byte c = b[p];
        if (c == '{' || c == '[') {
            if (depth == stack.length) {
                stack = Arrays.copyOf(stack, depth * 2);
            }
            stack[depth++] = c == '{' ? OBJ : ARR;
            put(c);
            state = c == '{' ? OBJ_FIRST : ARR_FIRST;
            return p + 1;
        }
        if (c == '"') {
            return string(p, false, -1);
        }
        return word(p);
    }

    /** A number, {@code true}, {@code false}, {@code null}, or something in their place, read to its delimiter. */
    private int word(int p) {
        int q = p;
        while (q < limit && !delimiter(b[q])) {
            q++;
        }
        if (q >= limit && !eof) {
            return -1 - NEED_MORE_MARK;
        }
        if (q >= limit) {
            end = q;
            return -1 - NEED_MORE_MARK; // cut off inside the word: need() reports the end of the input
        }
        if (q == p) {
            end = p;
            return -1 - FAILED;
        }
        if (isNumber(p, q) || is(p, q, "true") || is(p, q, "false") || is(p, q, "null")) {
            put(p, q);
        } else if (is(p, q, "NaN") || is(p, q, "Infinity") || is(p, q, "-Infinity") || is(p, q, "+Infinity")
                || is(p, q, "nan") || is(p, q, "inf") || is(p, q, "-inf")) {
            if (!repair(TraceRepairs.Kind.NOT_A_NUMBER, p)) {
                end = p;
                return -1 - FAILED;
            }
            put(NULL);
        } else {
            for (int i = p; i < q; i++) {
                if (b[i] < 0x21 || b[i] > 0x7e) {
                    end = i;
                    return -1 - FAILED;
                }
            }
            if (search || !repair(TraceRepairs.Kind.UNQUOTED_TEXT, p)) {
                end = p;
                return -1 - FAILED;
            }
            put('"');
            for (int i = p; i < q; i++) {
                if (b[i] == '\\') {
                    put('\\');
                }
                put(b[i]);
            }
            put('"');
        }
        valueDone();
        return q;
    }

    private static boolean delimiter(byte c) {
        return c == ',' || c == ']' || c == '}' || c == ':' || c == '"' || c == '[' || c == '{' || c == ' '
                || c == '\n' || c == '\r' || c == '\t';
    }

    private boolean is(int p, int q, String word) {
        if (q - p != word.length()) {
            return false;
        }
        for (int i = 0; i < word.length(); i++) {
            if (b[p + i] != word.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** JSON's number grammar: {@code -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?}. */
    private boolean isNumber(int p, int q) {
        int i = p;
        if (i < q && b[i] == '-') {
            i++;
        }
        if (i >= q || b[i] < '0' || b[i] > '9') {
            return false;
        }
        i = b[i] == '0' ? i + 1 : digitsEnd(i, q);
        if (i < q && b[i] == '.') {
            int digits = i + 1;
            i = digitsEnd(digits, q);
            if (i == digits) {
                return false;
            }
        }
        if (i < q && (b[i] == 'e' || b[i] == 'E')) {
            int digits = i + 1 < q && (b[i + 1] == '+' || b[i + 1] == '-') ? i + 2 : i + 1;
            i = digitsEnd(digits, q);
            if (i == digits) {
                return false;
            }
        }
        return i == q;
    }

    /** Returns the index after the decimal digits that start at {@code i}, before {@code q}. */
    private int digitsEnd(int i, int q) {
        while (i < q && b[i] >= '0' && b[i] <= '9') {
            i++;
        }
        return i;
    }

    /** After a value: what the container expects next, or done. */
    private void valueDone() {
        if (depth == stopDepth) {
            state = DONE;
        } else {
            state = stack[depth - 1] == OBJ ? OBJ_NEXT : ARR_NEXT;
        }
    }

    /** After a closing bracket. */
    private void closed() {
        depth--;
        valueDone();
    }

    private boolean duplicateKey(int keyStart, int at) {
        int keyEnd = outLen;
        for (int k = 0; k < keyCount; k++) {
            int s = keys[2 * k];
            int e = keys[2 * k + 1];
            if (e - s == keyEnd - keyStart && Arrays.equals(out, s, e, out, keyStart, keyEnd)) {
                // while searching, a repeated key is a sign of a reading begun at a wrong quote
                return !search && repair(TraceRepairs.Kind.DUPLICATE_KEY, at);
            }
        }
        if (2 * keyCount + 2 > keys.length) {
            keys = Arrays.copyOf(keys, keys.length * 2);
        }
        keys[2 * keyCount] = keyStart;
        keys[2 * keyCount + 1] = keyEnd;
        keyCount++;
        return true;
    }

    /**
     * A string from its opening quote at {@code p}, and the state after it (a key expects its colon). Returns the
     * index after its closing quote; or, when searching and the rest of the value was read on from one of its
     * quotes, {@code -1 - REST_DONE}; or {@code -1 - NEED_MORE_MARK}, or {@code -1 - FAILED} with {@link #end} set.
     *
     * @param keyStart for a key of the event's own object, where it starts in the output (duplicates are counted),
     *     else -1
     */
    private int string(int p, boolean key, int keyStart) {
        int content = outLen + 1;
        int repairsBefore = repairs;
        put('"');
        int i = p + 1;
        int firstRejected = -1;
        while (true) {
            if (firstRejected >= 0 && i - firstRejected > SCAN) {
                return fail(i);
            }
            if (i >= limit) {
                if (eof && firstRejected >= 0) {
                    return fail(i); // no quote of the string closes it with a reading of the rest
                }
                end = i;
                return -1 - NEED_MORE_MARK;
            }
            if (--budget < 0) {
                return fail(i);
            }
            byte c = b[i];
            if (c == '"') {
                if (simple) {
                    put('"');
                    return afterString(key, keyStart, p, i + 1, content, repairsBefore);
                }
                int r = restFrom(i, key, keyStart, p, content, repairsBefore);
                if (r != FAILED) {
                    return r == OK ? -1 - REST_DONE : -1 - NEED_MORE_MARK;
                }
                if (budget < 0) {
                    return fail(i);
                }
                // no reading from here: the writer's quote, escaped
                if (firstRejected < 0) {
                    firstRejected = i;
                }
                repair(TraceRepairs.Kind.UNESCAPED_QUOTE, i);
                put('\\');
                put('"');
                i++;
                continue;
            }
            if (c == '\\') {
                if (i + 1 >= limit) {
                    end = i;
                    return -1 - NEED_MORE_MARK;
                }
                byte e = b[i + 1];
                if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
                    put(c);
                    put(e);
                    i += 2;
                    continue;
                }
                if (e == 'u') {
                    if (i + 6 > limit && !eof) {
                        end = i;
                        return -1 - NEED_MORE_MARK;
                    }
                    if (i + 6 <= limit && hex(b[i + 2]) && hex(b[i + 3]) && hex(b[i + 4]) && hex(b[i + 5])) {
                        put(i, i + 6);
                        i += 6;
                        continue;
                    }
                }
                repair(TraceRepairs.Kind.INVALID_ESCAPE, i);
                put('\\');
                put('\\');
                i++;
                continue;
            }
            if ((c & 0xff) < 0x20) {
                if (search) {
                    // a string read across a line while searching is one begun at a wrong quote
                    return fail(i);
                }
                repair(TraceRepairs.Kind.CONTROL_CHARACTER, i);
                put('\\');
                put('u');
                put('0');
                put('0');
                put(HEX[(c >> 4) & 0xf]);
                put(HEX[c & 0xf]);
                i++;
                continue;
            }
            if (c >= 0) {
                put(c);
                i++;
                continue;
            }
            int n = utf8(i);
            if (n == 0) {
                end = i;
                return -1 - NEED_MORE_MARK;
            }
            if (n < 0) {
                repair(TraceRepairs.Kind.INVALID_UTF8, i);
                put(REPLACEMENT);
                i++;
            } else {
                put(i, i + n);
                i += n;
            }
        }
    }

    /**
     * After a closing quote at {@code next - 1}: the state a string leaves, a key's duplicate counted. Returns
     * {@code next}, or {@code -1 - FAILED} while searching for what a quote taken as closing in the wrong place makes:
     * a key of the event's own object that the Trace Event Format does not have, or a value of it that swallowed one
     * of its keys ({@code "cat": "cpu_op\", \"name\": ..."}).
     *
     * @param content where the string's content starts in the output
     * @param repairsBefore the repairs counted before the string
     */
    private int afterString(boolean key, int keyStart, int opening, int next, int content, int repairsBefore) {
        if (key) {
            if (keyStart >= 0) {
                if (search && !EVENT_KEYS.contains(new String(out, content, outLen - content - 1,
                        java.nio.charset.StandardCharsets.UTF_8))) {
                    end = opening;
                    return -1 - FAILED;
                }
                if (!duplicateKey(keyStart, opening)) {
                    end = opening;
                    return -1 - FAILED;
                }
            }
            state = OBJ_COLON;
        } else {
            if (search && repairs > repairsBefore && depth == 1 && stopDepth == 0 && swallowsKey(content)) {
                end = opening;
                return -1 - FAILED;
            }
            valueDone();
        }
        return next;
    }

    /**
     * Whether the string from {@code content} to its closing quote holds one of the event's keys as a member of it:
     * {@code "name":}, or {@code ", "name"} (the quotes were escaped when the string took them in).
     */
    private boolean swallowsKey(int content) {
        String text = new String(out, content, outLen - 1 - content, java.nio.charset.StandardCharsets.UTF_8)
                .replace("\\\"", "\"");
        java.util.regex.Matcher m = SWALLOWED.matcher(text);
        while (m.find()) {
            if (EVENT_KEYS.contains(m.group(1) != null ? m.group(1) : m.group(2))) {
                return true;
            }
        }
        return false;
    }

    private static final java.util.regex.Pattern SWALLOWED = java.util.regex.Pattern.compile(
            "\"([A-Za-z_0-9]+)\"\\s*:|\"\\s*,\\s*\"([A-Za-z_0-9]+)\"");

    /**
     * Searching: reads the rest of the value on from the quote at {@code q}, taken as closing its string; first as
     * sound (every later quote closing), then searching further quotes. On {@link #OK} the output holds the whole
     * value; on {@link #FAILED} the state, output and repairs are as before.
     */
    private int restFrom(int q, boolean key, int keyStart, int opening, int content, int repairsBefore) {
        byte[] savedStack = Arrays.copyOf(stack, Math.max(depth, 1));
        int savedDepth = depth;
        int savedState = state;
        int savedOut = outLen;
        int savedRepairs = repairs;
        int savedKeys = keyCount;
        for (int pass = 0; pass < 2; pass++) {
            if (pass == 1 && ++branches > MAX_BRANCHES) {
                break;
            }
            simple = pass == 0;
            put('"');
            int next = afterString(key, keyStart, opening, q + 1, content, repairsBefore);
            int r = next < 0 ? FAILED : run(next);
            if (r == END_OF_INPUT) {
                // a reading that runs to the end of the file from here is no reading of a damaged value
                r = FAILED;
            }
            simple = false;
            if (pass == 1) {
                branches--;
            }
            if (r != FAILED) {
                return r;
            }
            System.arraycopy(savedStack, 0, stack, 0, savedDepth);
            depth = savedDepth;
            state = savedState;
            outLen = savedOut;
            repairs = savedRepairs;
            keyCount = savedKeys;
        }
        end = q;
        return FAILED;
    }

    /** The length of a valid UTF-8 sequence at {@code i}, 0 when the bytes ran out, -1 when it is not one. */
    private int utf8(int i) {
        int c = b[i] & 0xff;
        int n;
        int lo = 0x80;
        int hi = 0xbf;
        if (c >= 0xc2 && c <= 0xdf) {
            n = 2;
        } else if (c >= 0xe0 && c <= 0xef) {
            n = 3;
            lo = c == 0xe0 ? 0xa0 : 0x80;
            hi = c == 0xed ? 0x9f : 0xbf;
        } else if (c >= 0xf0 && c <= 0xf4) {
            n = 4;
            lo = c == 0xf0 ? 0x90 : 0x80;
            hi = c == 0xf4 ? 0x8f : 0xbf;
        } else {
            return -1;
        }
        for (int k = 1; k < n; k++) {
            if (i + k >= limit) {
                return eof ? -1 : 0;
            }
            int d = b[i + k] & 0xff;
            if (k == 1 ? d < lo || d > hi : d < 0x80 || d > 0xbf) {
                return -1;
            }
        }
        return n;
    }

    private static boolean hex(byte c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    private int skipSpace(int p) {
        while (p < limit) {
            byte c = b[p];
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                break;
            }
            p++;
        }
        return p;
    }

    /**
     * Counts a repair when writing; a dry run takes the repairs inside a value as a reading, but not unquoted text or
     * a missing comma, which are what a quote taken for closing in the wrong place leaves behind.
     */
    private boolean repair(TraceRepairs.Kind kind, int at) {
        if (repairs == repairKinds.length) {
            repairKinds = Arrays.copyOf(repairKinds, repairs * 2);
            repairOffsets = Arrays.copyOf(repairOffsets, repairs * 2);
        }
        repairKinds[repairs] = kind;
        repairOffsets[repairs] = base + at;
        repairs++;
        return true;
    }

    private void put(byte c) {
        if (outLen == out.length) {
            out = Arrays.copyOf(out, out.length * 2);
        }
        out[outLen++] = c;
    }

    private void put(char c) {
        put((byte) c);
    }

    private void put(byte[] bytes) {
        for (byte c : bytes) {
            put(c);
        }
    }

    private void put(int from, int to) {
        int n = to - from;
        if (outLen + n > out.length) {
            out = Arrays.copyOf(out, Math.max(out.length * 2, outLen + n));
        }
        System.arraycopy(b, from, out, outLen, n);
        outLen += n;
    }
}
