package dev.vantage.analysis.sql;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;


/**
 * A long table kept in a file, so that {@code analyze}'s memory does not grow with the ranks: each rank's per-event
 * rows (launches, queue lengths, bandwidth samples, path edges) are appended as the rank is analysed and the rank's
 * results are dropped, or a query's rows as DuckDB returns them; the output reads the rows back rank after rank, in
 * the ranks' order whatever order they were appended in (a rank's parts in the order appended). Values keep their Java types ({@code Integer} stays {@code Integer}), so
 * what is read back is what an in-memory table would hold.
 *
 * <p>A row is its values, each a tag byte and its bytes. Text repeats (kernel names, edge types): the first
 * {@link #NAMES} distinct texts are held here and written as their number, any further one whole each time, so the
 * memory held stays bounded. Reading a row before the last one read starts its rank's part again (the writers read
 * in order: {@code table} twice, {@code csv} and {@code json} once).
 */
public final class SpilledRows extends ResultTable.Produced implements AutoCloseable {

    /** Texts numbered at most, per table. */
    public static final int NAMES = 1 << 16;

    private static final byte NULL = 0;
    private static final byte INT = 1;
    private static final byte LONG = 2;
    private static final byte DOUBLE = 3;
    private static final byte FLOAT = 4;
    private static final byte TRUE = 5;
    private static final byte FALSE = 6;
    private static final byte TEXT = 7;
    private static final byte NAME = 8;

    /** One rank's rows: where they start in the file, and how many. */
    private record Part(long offset, int rows) {
    }

    private final Path file;
    private final int columns;
    private final FileChannel channel;
    private DataOutputStream out;
    private long written;
    private final Map<String, Integer> numbered = new HashMap<>();
    private final List<String> names = new ArrayList<>();
    private final TreeMap<Integer, List<Part>> byRank = new TreeMap<>();
    private int size;

    /** The parts in the ranks' order and the index of each part's first row, made at the first read. */
    private List<Part> parts;
    private int[] firsts;
    private DataInputStream in;
    private int part = -1;
    private int next;

    /**
     * @param file a file of its own, created or emptied here, deleted on {@link #close}
     * @param columns the values in a row
     */
    public SpilledRows(Path file, int columns) throws IOException {
        this.file = file;
        this.columns = columns;
        this.channel = FileChannel.open(file, StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE,
                StandardOpenOption.READ);
        this.out = new DataOutputStream(new BufferedOutputStream(Channels.newOutputStream(channel),
                1 << 16));
    }

    /** Appends a rank's rows; every row has the table's number of values. Not after the first row is read. */
    public void append(int rank, List<List<Object>> rows) {
        if (out == null) {
            throw new IllegalStateException("rows added after the table was read");
        }
        long offset = written;
        try {
            for (List<Object> row : rows) {
                if (row.size() != columns) {
                    throw new IllegalArgumentException("a row of " + row.size() + " values in a table of " + columns
                            + " columns");
                }
                for (Object v : row) {
                    write(v);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("writing " + file, e);
        }
        size = Math.addExact(size, rows.size());
        byRank.computeIfAbsent(rank, r -> new ArrayList<>()).add(new Part(offset, rows.size()));
    }

    private void write(Object v) throws IOException {
        if (v == null) {
            tag(NULL, 0);
        } else if (v instanceof Integer i) {
            tag(INT, 4);
            out.writeInt(i);
        } else if (v instanceof Long l) {
            tag(LONG, 8);
            out.writeLong(l);
        } else if (v instanceof Double d) {
            tag(DOUBLE, 8);
            out.writeDouble(d);
        } else if (v instanceof Float f) {
            tag(FLOAT, 4);
            out.writeFloat(f);
        } else if (v instanceof Boolean b) {
            tag(b ? TRUE : FALSE, 0);
        } else if (v instanceof String s) {
            Integer n = numbered.get(s);
            if (n == null && names.size() < NAMES) {
                n = names.size();
                numbered.put(s, n);
                names.add(s);
            }
            if (n != null) {
                tag(NAME, 4);
                out.writeInt(n);
            } else {
                byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
                tag(TEXT, 4 + utf8.length);
                out.writeInt(utf8.length);
                out.write(utf8);
            }
        } else {
            throw new IllegalArgumentException("an analysis returned a " + v.getClass().getName());
        }
    }

    private void tag(byte tag, int bytes) throws IOException {
        out.writeByte(tag);
        written += 1 + bytes;
    }

    @Override
    public List<Object> get(int index) {
        if (index < 0 || index >= size) {
            throw new IndexOutOfBoundsException(index);
        }
        try {
            if (out != null) {
                out.flush();
                out = null;
                numbered.clear();
                parts = new ArrayList<>();
                byRank.values().forEach(parts::addAll);
                firsts = new int[parts.size() + 1];
                for (int p = 0; p < parts.size(); p++) {
                    firsts[p + 1] = firsts[p] + parts.get(p).rows();
                }
            }
            if (in == null || index < next || index >= firsts[part + 1]) {
                // the part holding the index (a part of no rows shares its first index with the next)
                int p = Arrays.binarySearch(firsts, index);
                p = p >= 0 ? p : -p - 2;
                while (firsts[p + 1] <= index) {
                    p++;
                }
                if (p != part || index < next) {
                    open(p);
                }
            }
            while (next < index) {
                read();
            }
            return read();
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + file, e);
        }
    }

    private void open(int p) throws IOException {
        part = p;
        next = firsts[p];
        // a fresh stream on the channel at the part's offset; the channel stays open, so the old one is let go
        in = new DataInputStream(new BufferedInputStream(Channels.newInputStream(
                channel.position(parts.get(p).offset())), 1 << 16));
    }

    private List<Object> read() throws IOException {
        Object[] row = new Object[columns];
        for (int c = 0; c < columns; c++) {
            byte tag = in.readByte();
            row[c] = switch (tag) {
                case NULL -> null;
                case INT -> in.readInt();
                case LONG -> in.readLong();
                case DOUBLE -> in.readDouble();
                case FLOAT -> in.readFloat();
                case TRUE -> Boolean.TRUE;
                case FALSE -> Boolean.FALSE;
                case NAME -> names.get(in.readInt());
                case TEXT -> {
                    byte[] utf8 = new byte[in.readInt()];
                    in.readFully(utf8);
                    yield new String(utf8, StandardCharsets.UTF_8);
                }
                default -> throw new EOFException(file + " is damaged: tag " + tag + " in row " + next);
            };
        }
        next++;
        // an unmodifiable row, as an in-memory table's (List.of would refuse the nulls an analysis may return)
        return Collections.unmodifiableList(Arrays.asList(row));
    }

    @Override
    public int size() {
        return size;
    }

    /** Deletes the file. */
    @Override
    public void close() throws IOException {
        try {
            if (out != null) {
                out.flush();
                out = null;
            }
            in = null;
            channel.close();
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
