package dev.vantage.device.onnxruntime.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The few JSON scanning steps the profile reader needs, over a byte array: find where a value ends without building
 * it, read a number, decode a string's escapes. Every method takes the end of the valid bytes and returns
 * {@link #INCOMPLETE} when the value runs past it, so that a reader of a file in chunks can read on.
 */
final class Json {

    /** Returned when a value does not end before the end of the valid bytes. */
    static final int INCOMPLETE = -1;

    private Json() {
    }

    /** Returns the first index from {@code i} that is no JSON whitespace, or {@code end}. */
    static int skipSpace(byte[] b, int i, int end) {
        if (i < end && b[i] > ' ') {
            // the usual case, no whitespace at all: one test
            return i;
        }
        while (i < end) {
            byte c = b[i];
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                return i;
            }
            i++;
        }
        return end;
    }

    /** Reads eight bytes of an array as one little-endian long. */
    static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    private static final long QUOTES = 0x2222222222222222L;
    private static final long BACKSLASHES = 0x5C5C5C5C5C5C5C5CL;

    /**
     * Given the index just after a string's opening quote, returns the index of its closing quote. Eight bytes at a
     * time: a word with neither a quote nor a backslash is skipped whole (the classic has-zero-byte test on the word
     * xor'ed with each), which most of a profile's strings are.
     */
    static int stringEnd(byte[] b, int i, int end) {
        while (i + 8 <= end) {
            long v = (long) LONGS.get(b, i);
            long q = v ^ QUOTES;
            long s = v ^ BACKSLASHES;
            long hit = ((q - ONES) & ~q | (s - ONES) & ~s) & HIGHS;
            if (hit == 0) {
                i += 8;
                continue;
            }
            // the first quote or backslash of the word (the lowest flagged byte is exact)
            i += Long.numberOfTrailingZeros(hit) >>> 3;
            if (b[i] == '"') {
                return i;
            }
            i += 2;
        }
        while (i < end) {
            byte c = b[i];
            if (c == '"') {
                return i;
            }
            i += c == '\\' ? 2 : 1;
        }
        return INCOMPLETE;
    }

    /** Returns the index just after the value that starts at {@code i} (which is no whitespace). */
    static int valueEnd(byte[] b, int i, int end) {
        if (i >= end) {
            return INCOMPLETE;
        }
        byte c = b[i];
        if (c == '"') {
            int close = stringEnd(b, i + 1, end);
            return close < 0 ? INCOMPLETE : close + 1;
        }
        if (c == '{' || c == '[') {
            return containerEnd(b, i, end);
        }
        // a number or a literal: up to the next delimiter
        while (i < end) {
            c = b[i];
            if (c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t') {
                return i;
            }
            i++;
        }
        return INCOMPLETE;
    }

    private static final long OPENS = 0x7B7B7B7B7B7B7B7BL;
    private static final long CLOSES = 0x7D7D7D7D7D7D7D7DL;
    private static final long CASE = 0x2020202020202020L;

    /**
     * Returns the index just after the object or array that starts at {@code i}. Eight bytes at a time: only
     * quotes, brackets, braces and backslashes matter, and a word holding none is skipped whole. The brackets are
     * the braces with bit 5 cleared (0x5B and 0x7B, 0x5D and 0x7D), so or'ing the word with 0x20 bytes leaves two
     * tests for the four. The flagged bytes of a word are then taken one by one, lowest first, and the string state
     * is followed inline (a profile's containers hold many short strings: a call per string cost more than the
     * string). The zero-byte test can flag a byte above a flagged one that is no special character; each flagged
     * byte is read before it counts. A backslash hands the container to {@link #containerEndByStrings}, which
     * follows escapes.
     */
    static int containerEnd(byte[] b, int i, int end) {
        int from = i;
        int depth = 0;
        boolean inString = false;
        while (i + 8 <= end) {
            long v = (long) LONGS.get(b, i);
            long q = v ^ QUOTES;
            long y = v | CASE;
            long o = y ^ OPENS;
            long c = y ^ CLOSES;
            long s = v ^ BACKSLASHES;
            long hit = ((q - ONES) & ~q | (o - ONES) & ~o | (c - ONES) & ~c | (s - ONES) & ~s) & HIGHS;
            while (hit != 0) {
                int at = i + (Long.numberOfTrailingZeros(hit) >>> 3);
                hit &= hit - 1;
                byte ch = b[at];
                if (ch == '"') {
                    inString = !inString;
                } else if (ch == '\\') {
                    return containerEndByStrings(b, from, end);
                } else if (!inString) {
                    if (ch == '{' || ch == '[') {
                        depth++;
                    } else if ((ch == '}' || ch == ']') && --depth == 0) {
                        return at + 1;
                    }
                }
            }
            i += 8;
        }
        for (; i < end; i++) {
            byte ch = b[i];
            if (ch == '"') {
                inString = !inString;
            } else if (ch == '\\') {
                return containerEndByStrings(b, from, end);
            } else if (!inString) {
                if (ch == '{' || ch == '[') {
                    depth++;
                } else if ((ch == '}' || ch == ']') && --depth == 0) {
                    return i + 1;
                }
            }
        }
        return INCOMPLETE;
    }

    /**
     * {@link #containerEnd} for a container whose strings may hold escapes: each string is skipped by
     * {@link #stringEnd}, which steps over an escaped character.
     */
    static int containerEndByStrings(byte[] b, int i, int end) {
        int depth = 0;
        while (i < end) {
            if (i + 8 <= end) {
                long v = (long) LONGS.get(b, i);
                long q = v ^ QUOTES;
                long y = v | CASE;
                long o = y ^ OPENS;
                long c = y ^ CLOSES;
                long hit = ((q - ONES) & ~q | (o - ONES) & ~o | (c - ONES) & ~c) & HIGHS;
                if (hit == 0) {
                    i += 8;
                    continue;
                }
                i += Long.numberOfTrailingZeros(hit) >>> 3;
            }
            byte c = b[i];
            if (c == '"') {
                int close = stringEnd(b, i + 1, end);
                if (close < 0) {
                    return INCOMPLETE;
                }
                i = close + 1;
                continue;
            }
            if (c == '{' || c == '[') {
                depth++;
            } else if ((c == '}' || c == ']') && --depth == 0) {
                return i + 1;
            }
            i++;
        }
        return INCOMPLETE;
    }

    /**
     * Reads a whole number from {@code b[from, to)}: a JSON number, or a string holding one (ONNX Runtime writes
     * its sizes as strings). A fraction is cut off; anything else gives {@code fallback}.
     */
    static long number(byte[] b, int from, int to, long fallback) {
        if (from < to && b[from] == '"') {
            from++;
            to--;
        }
        if (from >= to) {
            return fallback;
        }
        boolean negative = b[from] == '-';
        int i = negative ? from + 1 : from;
        if (i >= to) {
            return fallback;
        }
        long v = 0;
        for (; i < to; i++) {
            int d = b[i] - '0';
            if (d < 0 || d > 9) {
                if (b[i] == '.' || b[i] == 'e' || b[i] == 'E') {
                    break;
                }
                return fallback;
            }
            v = v * 10 + d;
        }
        return negative ? -v : v;
    }

    /** Decodes a JSON string's content {@code b[from, to)} (between the quotes). */
    static String unescape(byte[] b, int from, int to) {
        boolean plain = true;
        for (int i = from; i < to; i++) {
            if (b[i] == '\\') {
                plain = false;
                break;
            }
        }
        if (plain) {
            return new String(b, from, to - from, StandardCharsets.UTF_8);
        }
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(to - from);
        for (int i = from; i < to; i++) {
            byte c = b[i];
            if (c != '\\' || i + 1 >= to) {
                out.write(c);
                continue;
            }
            byte e = b[++i];
            switch (e) {
                case 'n' -> out.write('\n');
                case 't' -> out.write('\t');
                case 'r' -> out.write('\r');
                case 'b' -> out.write('\b');
                case 'f' -> out.write('\f');
                case 'u' -> {
                    if (i + 4 < to) {
                        int cp = Integer.parseInt(new String(b, i + 1, 4, StandardCharsets.US_ASCII), 16);
                        byte[] utf8 = String.valueOf((char) cp).getBytes(StandardCharsets.UTF_8);
                        out.write(utf8, 0, utf8.length);
                        i += 4;
                    }
                }
                default -> out.write(e);
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
