package dev.vantage.exporter.files.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import dev.vantage.profiler.api.RunRecord;

/**
 * Appends runs to a profile directory's run registry, {@code runs.jsonl}: one JSON object per line, the fields of
 * {@code run.schema.json} (analysis module).
 *
 * <p>Concurrency: several processes (the ranks of a launch) and several threads may append to one registry at
 * once. The whole line is built in memory first, then written under an exclusive {@link FileLock} of the file
 * (between processes) held inside a JVM-wide monitor (a JVM may hold only one lock of a file), at the file's end as
 * the lock holder sees it; so lines never interleave. A line left without its newline by a writer that died is ended before
 * the next one is appended, so that one crash damages one line only. A write that fails (a full disk) is cut back,
 * so a line is in the file whole or not at all, and every earlier line stays intact; see {@link #appendLine}.
 */
final class RunLog {

    static final String FILE_NAME = "runs.jsonl";
    /** The version of the line's layout; a reader that knows version N reads every line of version N. */
    static final int SCHEMA_VERSION = 1;

    private static final Object APPEND_LOCK = new Object();
    private static final JsonFactory JSON = new JsonFactory();

    /** A bundle of the running platform. */
    record BundleVersion(String symbolicName, String version) {
    }

    /** A file a run wrote, as its line lists it. */
    record WrittenFile(String path, String kind, long bytes, String sha256) {
    }

    private RunLog() {
    }

    /**
     * Appends a run's line.
     *
     * @param platform the platform's facts ({@code framework}, {@code distribution}, {@code java}, ...); null
     *     values left out
     * @return the registry file
     */
    static Path append(Path profileDir, RunRecord run, Map<String, String> platform, List<BundleVersion> bundles)
            throws IOException {
        Path dir = profileDir.toAbsolutePath().normalize();
        Files.createDirectories(dir);
        Path file = dir.resolve(FILE_NAME);
        appendLine(file, line(dir, run, platform, bundles));
        return file;
    }

    /** How bytes reach a file: the file system's positional write; in tests, a disk that fills up. */
    @FunctionalInterface
    interface Disk {
        /** Writes some of {@code from} at {@code at}; returns how many bytes. */
        int write(FileChannel channel, ByteBuffer from, long at) throws IOException;
    }

    /** The file system, unless a test simulates a full one. */
    static volatile Disk disk = (channel, from, at) -> channel.write(from, at);

    /**
     * Appends one line whole or not at all, under the file's lock, ending a line a dead writer left open first.
     * A registry that does not exist yet is made by linking a complete temporary file into place, so that a full
     * disk never leaves an empty {@code runs.jsonl}; one that does is appended to, and cut back to its old length
     * when the write fails, so that a full disk never leaves a partial line. A registry that is a symbolic link, not
     * a regular file or not owned by this process's user is refused, as the deploy directory is: a run would
     * otherwise write where someone else pointed it.
     *
     * @throws IOException if the line cannot be written (the registry is then as it was), or the registry is refused
     */
    static void appendLine(Path file, byte[] line) throws IOException {
        synchronized (APPEND_LOCK) {
            for (int attempt = 0; ; attempt++) {
                if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
                    try {
                        create(file, line);
                        return;
                    } catch (FileAlreadyExistsException e) {
                        // another writer made it first: append to theirs
                    }
                }
                try {
                    append(file, line);
                    return;
                } catch (NoSuchFileException e) {
                    if (attempt >= 3) {
                        throw e;
                    }
                    // removed between the look and the open: make it again
                }
            }
        }
    }

    private static void create(Path file, byte[] line) throws IOException {
        Path tmp = file.resolveSibling("." + file.getFileName() + "." + ProcessHandle.current().pid() + "."
                + UUID.randomUUID() + ".tmp");
        try {
            try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE)) {
                writeAll(channel, ByteBuffer.wrap(line), 0);
                channel.force(true);
            }
            try {
                // link(2) fails when the name exists: no writer's registry is ever replaced
                Files.createLink(file, tmp);
            } catch (UnsupportedOperationException e) {
                // no hard links here: fall back to the lock (a full disk may then leave an empty file)
                append(file, line);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    private static void append(Path file, byte[] line) throws IOException {
        // positional writes at the end, not APPEND (which excludes READ): every writer holds the lock
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS);
                FileLock lock = channel.lock()) {
            checkOwned(file);
            long size = channel.size();
            ByteBuffer buffer = ByteBuffer.wrap(line);
            if (size > 0) {
                ByteBuffer last = ByteBuffer.allocate(1);
                channel.read(last, size - 1);
                if (last.get(0) != '\n') {
                    buffer = ByteBuffer.allocate(line.length + 1).put((byte) '\n').put(line).flip();
                }
            }
            try {
                writeAll(channel, buffer, size);
                channel.force(false);
            } catch (IOException e) {
                // whole or not at all: cut back what fitted, so the next line starts where this one would have
                try {
                    channel.truncate(size);
                } catch (IOException cut) {
                    e.addSuppressed(cut);
                }
                throw e;
            }
        } catch (IOException e) {
            // O_NOFOLLOW's ELOOP comes as a plain IOException
            if (Files.isSymbolicLink(file)) {
                throw refused(file, "is a symbolic link (to " + Files.readSymbolicLink(file) + ")");
            }
            throw e;
        }
    }

    private static void writeAll(FileChannel channel, ByteBuffer buffer, long at) throws IOException {
        for (long position = at; buffer.hasRemaining(); ) {
            position += disk.write(channel, buffer, position);
        }
    }

    /** Refuses a registry that is not a regular file of this process's user. */
    private static void checkOwned(Path file) throws IOException {
        BasicFileAttributes attrs = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!attrs.isRegularFile()) {
            throw refused(file, "is not a regular file");
        }
        String user = System.getProperty("user.name");
        String owner;
        try {
            owner = Files.getOwner(file, LinkOption.NOFOLLOW_LINKS).getName();
        } catch (UnsupportedOperationException e) {
            return;   // no owners on this file system: nothing to compare
        }
        if (user != null && !owner.equals(user)) {
            throw refused(file, "belongs to " + owner + ", not to " + user);
        }
    }

    private static IOException refused(Path file, String why) {
        return new IOException(file + " " + why + "; the run registry is written only to a file of this user's"
                + " own, so no line went there (remove it, or give another --profile-dir)");
    }

    /** The run's line, newline included. */
    static byte[] line(Path dir, RunRecord run, Map<String, String> platform, List<BundleVersion> bundles)
            throws IOException {
        List<WrittenFile> artifacts = artifacts(dir, run);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(4096);
        try (JsonGenerator g = JSON.createGenerator(bytes)) {
            g.writeStartObject();
            g.writeNumberField("schema_version", SCHEMA_VERSION);
            g.writeStringField("run_id", run.runId());
            if (run.jobId() != null) {
                g.writeStringField("job_id", run.jobId());
            }
            if (run.rank() != null) {
                g.writeNumberField("rank", run.rank());
                g.writeNumberField("world_size", run.worldSize() == null ? 1 : run.worldSize());
            }
            g.writeStringField("trigger", run.trigger());
            g.writeStringField("status", run.status());
            g.writeStringField("start_time", Instant.ofEpochSecond(0, run.startEpochNanos()).toString());
            g.writeNumberField("start_epoch_ns", run.startEpochNanos());
            g.writeStringField("end_time", Instant.ofEpochSecond(0, run.endEpochNanos()).toString());
            g.writeNumberField("end_epoch_ns", run.endEpochNanos());
            g.writeStringField("host", host());
            g.writeNumberField("pid", ProcessHandle.current().pid());
            g.writeArrayFieldStart("command_line");
            for (String word : run.commandLine()) {
                g.writeString(word);
            }
            g.writeEndArray();
            g.writeFieldName("configuration");
            value(g, run.configuration());
            g.writeObjectFieldStart("platform");
            for (Map.Entry<String, String> e : platform.entrySet()) {
                if (e.getValue() != null) {
                    g.writeStringField(e.getKey(), e.getValue());
                }
            }
            g.writeEndObject();
            g.writeArrayFieldStart("bundles");
            for (BundleVersion b : bundles) {
                g.writeStartObject();
                g.writeStringField("symbolic_name", b.symbolicName());
                g.writeStringField("version", b.version());
                g.writeEndObject();
            }
            g.writeEndArray();
            devices(g, run.devices());
            steps(g, run.steps());
            g.writeArrayFieldStart("artifacts");
            for (WrittenFile a : artifacts) {
                g.writeStartObject();
                g.writeStringField("path", a.path());
                g.writeStringField("kind", a.kind());
                g.writeNumberField("bytes", a.bytes());
                g.writeStringField("sha256", a.sha256());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        bytes.write('\n');
        return bytes.toByteArray();
    }

    private static void devices(JsonGenerator g, List<RunRecord.Device> devices) throws IOException {
        g.writeArrayFieldStart("devices");
        for (RunRecord.Device d : devices) {
            g.writeStartObject();
            g.writeStringField("name", d.name());
            if (d.emulated() != null) {
                g.writeBooleanField("emulated", d.emulated());
            }
            if (d.memoryCapacityBytes() != null) {
                g.writeNumberField("memory_capacity_bytes", d.memoryCapacityBytes());
            }
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    private static void steps(JsonGenerator g, List<RunRecord.Step> steps) throws IOException {
        g.writeArrayFieldStart("steps");
        for (RunRecord.Step s : steps) {
            g.writeStartObject();
            g.writeNumberField("step", s.step());
            g.writeNumberField("duration_ns", s.durationNanos());
            if (!s.allocatedBytes().isEmpty() || !s.peakAllocatedBytes().isEmpty()) {
                g.writeObjectFieldStart("memory");
                for (String device : new java.util.TreeSet<>(union(s))) {
                    g.writeObjectFieldStart(device);
                    Long now = s.allocatedBytes().get(device);
                    if (now != null) {
                        g.writeNumberField("allocated_bytes", now);
                    }
                    Long peak = s.peakAllocatedBytes().get(device);
                    if (peak != null) {
                        g.writeNumberField("peak_allocated_bytes", peak);
                    }
                    g.writeEndObject();
                }
                g.writeEndObject();
            }
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    private static Collection<String> union(RunRecord.Step s) {
        List<String> all = new ArrayList<>(s.allocatedBytes().keySet());
        all.addAll(s.peakAllocatedBytes().keySet());
        return all;
    }

    /** Writes a configuration value: maps, collections, strings, numbers and booleans as JSON; others as text. */
    private static void value(JsonGenerator g, Object v) throws IOException {
        if (v instanceof Map<?, ?> map) {
            g.writeStartObject();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                if (e.getValue() != null) {
                    g.writeFieldName(String.valueOf(e.getKey()));
                    value(g, e.getValue());
                }
            }
            g.writeEndObject();
        } else if (v instanceof Collection<?> list) {
            g.writeStartArray();
            for (Object o : list) {
                value(g, o);
            }
            g.writeEndArray();
        } else if (v instanceof Boolean b) {
            g.writeBoolean(b);
        } else if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
            g.writeNumber(((Number) v).longValue());
        } else if (v instanceof Number n) {
            g.writeNumber(n.doubleValue());
        } else if (v == null) {
            g.writeNull();
        } else {
            g.writeString(v.toString());
        }
    }

    /**
     * The files of the run's artifacts: a file as itself, a folder as the files in it this process
     * wrote since the run began (modified since then; of those, the ones whose name carries this process's pid
     * when some do, as TensorBoard's {@code <host>_<pid>} workers do in a run directory the ranks share). A target
     * that does not exist (its export failed) is left out, and a file is listed once, however many artifacts hold it.
     */
    static List<WrittenFile> artifacts(Path dir, RunRecord run) throws IOException {
        List<WrittenFile> list = new ArrayList<>();
        Set<Path> listed = new HashSet<>();
        long sinceMillis = run.startEpochNanos() / 1_000_000 - 1_000;   // file times may be kept to the second
        Pattern pid = Pattern.compile("(^|[^0-9])" + ProcessHandle.current().pid() + "([^0-9]|$)");
        for (RunRecord.Artifact a : run.artifacts()) {
            Path target = a.target().toAbsolutePath().normalize();
            List<Path> files = new ArrayList<>();
            if (Files.isRegularFile(target)) {
                files.add(target);
            } else if (Files.isDirectory(target)) {
                List<Path> recent = new ArrayList<>();
                try (Stream<Path> walk = Files.walk(target)) {
                    for (Path p : (Iterable<Path>) walk.sorted()::iterator) {
                        if (Files.isRegularFile(p) && !p.getFileName().toString().startsWith(".")
                                && Files.getLastModifiedTime(p).toMillis() >= sinceMillis) {
                            recent.add(p);
                        }
                    }
                }
                List<Path> ours = recent.stream().filter(p -> pid.matcher(p.getFileName().toString()).find())
                        .toList();
                files.addAll(ours.isEmpty() ? recent : ours);
            }
            for (Path f : files) {
                // each cycle names the folder it writes into (TensorBoard's run directory): its files are listed once
                if (listed.add(f)) {
                    list.add(new WrittenFile(relative(dir, f), a.kind(), Files.size(f), RunRecord.sha256(f)));
                }
            }
        }
        return list;
    }

    /** The path relative to the profile directory with {@code /} between names, or absolute when outside it. */
    static String relative(Path dir, Path file) {
        if (!file.startsWith(dir)) {
            return file.toString();
        }
        List<String> names = new ArrayList<>();
        for (Path name : dir.relativize(file)) {
            names.add(name.toString());
        }
        return String.join("/", names);
    }

    private static String host() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "localhost";
        }
    }
}
