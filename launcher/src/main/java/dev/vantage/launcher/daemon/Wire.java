package dev.vantage.launcher.daemon;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What a client and a resident process say to each other over the process's socket. The client sends one request: a
 * magic number, its kind, then (for a call) its working folder, its environment and its arguments. The process
 * answers with frames: a byte saying which, then for {@link #OUT} and {@link #ERR} a length and that many bytes of
 * the call's standard output or error, for {@link #EXIT} the exit code, which ends the answer. {@link #ELSEWHERE} says
 * the call is not the process's to run (a verb that boots the platform, another identity's call on a key both hash to):
 * the client runs it itself.
 */
final class Wire {

    /** The first four bytes of a request: "VTD" and the protocol's version. */
    static final int MAGIC = 0x56544401;

    /** A call of a verb. */
    static final byte CALL = 1;
    /** A request for the process's state, answered as one line of standard output. */
    static final byte STATUS = 2;
    /** A request to stop once the answer is sent. */
    static final byte STOP = 3;

    /** A frame of standard output. */
    static final byte OUT = 1;
    /** A frame of standard error. */
    static final byte ERR = 2;
    /** The exit code; the answer's last frame. */
    static final byte EXIT = 3;
    /** The call is the client's to run; the answer's last frame. */
    static final byte ELSEWHERE = 4;

    /** The longest string either side accepts: a request is a command line, not data. */
    private static final int MAX_STRING = 1 << 20;

    private Wire() {
    }

    /**
     * One request.
     *
     * @param kind {@link #CALL}, {@link #STATUS} or {@link #STOP}
     * @param identity what the client wants served ({@link Daemons#identity}: the launcher, its working folder, ...;
     *     a call's only)
     * @param env the client's environment (a call's only)
     * @param args the words after {@code vantage} (a call's only)
     */
    record Request(byte kind, String identity, Map<String, String> env, List<String> args) {

        void write(DataOutputStream out) throws IOException {
            out.writeInt(MAGIC);
            out.writeByte(kind);
            if (kind == CALL) {
                writeString(out, identity);
                out.writeInt(env.size());
                for (Map.Entry<String, String> e : env.entrySet()) {
                    writeString(out, e.getKey());
                    writeString(out, e.getValue());
                }
                out.writeInt(args.size());
                for (String arg : args) {
                    writeString(out, arg);
                }
            }
            out.flush();
        }

        /**
         * Reads a request.
         *
         * @throws IOException if the bytes are not one (another program on the socket)
         */
        static Request read(DataInputStream in) throws IOException {
            if (in.readInt() != MAGIC) {
                throw new IOException("not a request of this version of vantage");
            }
            byte kind = in.readByte();
            if (kind == STATUS || kind == STOP) {
                return new Request(kind, null, Map.of(), List.of());
            }
            if (kind != CALL) {
                throw new IOException("unknown request kind " + kind);
            }
            String identity = readString(in);
            int n = count(in);
            Map<String, String> env = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                env.put(readString(in), readString(in));
            }
            int m = count(in);
            List<String> args = new ArrayList<>(m);
            for (int i = 0; i < m; i++) {
                args.add(readString(in));
            }
            return new Request(kind, identity, env, args);
        }
    }

    private static int count(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > 65_536) {
            throw new IOException("a request with " + n + " entries");
        }
        return n;
    }

    static void writeString(DataOutputStream out, String s) throws IOException {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    static String readString(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > MAX_STRING) {
            throw new IOException("a string of " + n + " bytes in a request");
        }
        return new String(in.readNBytes(n), StandardCharsets.UTF_8);
    }

    /** Writes the exit code, the answer's last frame. */
    static void exit(DataOutputStream out, int code) throws IOException {
        synchronized (out) {
            out.writeByte(EXIT);
            out.writeInt(code);
            out.flush();
        }
    }

    /** Says the call is the client's to run. */
    static void elsewhere(DataOutputStream out) throws IOException {
        synchronized (out) {
            out.writeByte(ELSEWHERE);
            out.flush();
        }
    }

    /**
     * Reads an answer's frames, writing output and errors as they come.
     *
     * @return the exit code, or -1 for {@link #ELSEWHERE}
     * @throws EOFException if the process ended before its last frame
     */
    static int relay(DataInputStream in, OutputStream out, OutputStream err) throws IOException {
        while (true) {
            byte kind = in.readByte();
            switch (kind) {
                case OUT, ERR -> {
                    int n = in.readInt();
                    if (n < 0) {
                        throw new IOException("a frame of " + n + " bytes");
                    }
                    OutputStream to = kind == OUT ? out : err;
                    to.write(in.readNBytes(n));
                    to.flush();
                }
                case EXIT -> {
                    return in.readInt();
                }
                case ELSEWHERE -> {
                    return -1;
                }
                default -> throw new IOException("unknown frame " + kind);
            }
        }
    }

    /**
     * One stream of a call's answer (output or errors) cut into frames on a socket another stream shares. Once the
     * client has gone, a write throws an unchecked exception, which a {@link java.io.PrintStream} passes on (it keeps
     * an {@code IOException} to itself), so that the call ends instead of computing for nobody.
     */
    static final class FrameStream extends OutputStream {
        private final byte kind;
        private final DataOutputStream sink;
        private final AtomicBoolean gone;

        FrameStream(byte kind, DataOutputStream sink) {
            this(kind, sink, new AtomicBoolean());
        }

        FrameStream(byte kind, DataOutputStream sink, AtomicBoolean gone) {
            this.kind = kind;
            this.sink = sink;
            this.gone = gone;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return;
            }
            try {
                synchronized (sink) {
                    ended();
                    sink.writeByte(kind);
                    sink.writeInt(len);
                    sink.write(b, off, len);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("the client has gone", e);
            }
        }

        @Override
        public void flush() throws IOException {
            try {
                synchronized (sink) {
                    ended();
                    sink.flush();
                }
            } catch (IOException e) {
                throw new UncheckedIOException("the client has gone", e);
            }
        }

        private void ended() throws IOException {
            if (gone.get()) {
                throw new IOException("the client has gone");
            }
        }
    }
}
