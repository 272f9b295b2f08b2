package dev.vantage.exporter.parquet.internal;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * Writes the rows of one table to one Parquet file with parquet-java, without Hadoop: the file is a
 * {@link LocalOutputFile}, the configuration a {@link PlainParquetConfiguration} and compression {@link SnappyCodecs}.
 * One {@link Row} is reused for every row, so a row costs no object beyond the UTF-8 bytes of a string not seen
 * before (strings are cached by value, up to {@link #CACHED_STRINGS}). Memory is bounded by the row group size: the
 * writer flushes a row group when its buffered pages reach it.
 *
 * <p>Not thread-safe: one writer per table, fed by one thread.
 */
final class TableWriter implements Closeable {

    /** Row groups of this many bytes: small enough that four open tables fit a 256 MiB heap with room to spare. */
    static final long ROW_GROUP_BYTES = 16L << 20;

    /** Strings whose UTF-8 form is kept for reuse; names repeat, so this covers a trace's distinct names. */
    static final int CACHED_STRINGS = 1 << 16;

    private final Row row;
    private final ParquetWriter<Row> writer;
    private final Map<String, Binary> strings = new HashMap<>();
    private long rows;

    TableWriter(Path file, MessageType schema) throws IOException {
        this.row = new Row(schema);
        this.writer = new Builder(new LocalOutputFile(file), schema)
                .withConf(new PlainParquetConfiguration())
                .withCodecFactory(new SnappyCodecs())
                .withCompressionCodec(CompressionCodecName.SNAPPY)
                .withRowGroupSize(ROW_GROUP_BYTES)
                .withValidation(false)
                .build();
    }

    /** Clears the reused row and returns it for the next row's values. */
    Row row() {
        row.clear();
        return row;
    }

    /** Writes the row filled since {@link #row()}. */
    void write() throws IOException {
        row.checkComplete();
        writer.write(row);
        rows++;
    }

    /** Returns how many rows were written. */
    long rows() {
        return rows;
    }

    @Override
    public void close() throws IOException {
        writer.close();
    }

    private Binary utf8(String s) {
        Binary b = strings.get(s);
        if (b == null) {
            b = Binary.fromConstantByteArray(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            if (strings.size() < CACHED_STRINGS) {
                strings.put(s, b);
            }
        }
        return b;
    }

    /** The values of one row, by column index of the table's schema; a column not set is null. */
    final class Row {
        private final List<Type> fields;
        private final PrimitiveType.PrimitiveTypeName[] types;
        private final boolean[] required;
        private final boolean[] set;
        private final long[] numbers;
        private final String[] texts;

        private Row(MessageType schema) {
            this.fields = schema.getFields();
            int n = fields.size();
            types = new PrimitiveType.PrimitiveTypeName[n];
            required = new boolean[n];
            for (int i = 0; i < n; i++) {
                types[i] = fields.get(i).asPrimitiveType().getPrimitiveTypeName();
                required[i] = fields.get(i).isRepetition(Type.Repetition.REQUIRED);
            }
            set = new boolean[n];
            numbers = new long[n];
            texts = new String[n];
        }

        /** Sets an INT64, INT32 or BOOLEAN column (for BOOLEAN, non-zero is true; a DOUBLE's raw bits). */
        Row set(int column, long value) {
            numbers[column] = value;
            set[column] = true;
            return this;
        }

        /** Sets a DOUBLE column. */
        Row set(int column, double value) {
            return set(column, Double.doubleToRawLongBits(value));
        }

        /** Sets an optional DOUBLE column, or leaves it null when {@code value} is NaN (the trace's "none"). */
        Row setOrNull(int column, double value) {
            if (!Double.isNaN(value)) {
                set(column, value);
            }
            return this;
        }

        /** Sets a BOOLEAN column. */
        Row set(int column, boolean value) {
            return set(column, value ? 1 : 0);
        }

        /** Sets a string column; {@code null} leaves it null. */
        Row set(int column, String value) {
            texts[column] = value;
            set[column] = value != null;
            return this;
        }

        /** Sets an optional column, or leaves it null when {@code value} is negative (the trace's "none"). */
        Row setOrNull(int column, long value) {
            if (value >= 0) {
                set(column, value);
            }
            return this;
        }

        private void clear() {
            java.util.Arrays.fill(set, false);
        }

        private void checkComplete() {
            for (int i = 0; i < set.length; i++) {
                if (required[i] && !set[i]) {
                    throw new IllegalStateException("column '" + fields.get(i).getName() + "' is required");
                }
            }
        }

        private void writeTo(RecordConsumer out) {
            out.startMessage();
            for (int i = 0; i < set.length; i++) {
                if (!set[i]) {
                    continue;
                }
                String name = fields.get(i).getName();
                out.startField(name, i);
                switch (types[i]) {
                    case INT64 -> out.addLong(numbers[i]);
                    case DOUBLE -> out.addDouble(Double.longBitsToDouble(numbers[i]));
                    case INT32 -> out.addInteger((int) numbers[i]);
                    case BOOLEAN -> out.addBoolean(numbers[i] != 0);
                    case BINARY -> out.addBinary(utf8(texts[i]));
                    default -> throw new IllegalStateException("no writer for " + types[i] + " column " + name);
                }
                out.endField(name, i);
            }
            out.endMessage();
        }
    }

    /** Hands each {@link Row} to parquet-java's record consumer. */
    private static final class RowWriteSupport extends WriteSupport<Row> {
        private final MessageType schema;
        private RecordConsumer consumer;

        RowWriteSupport(MessageType schema) {
            this.schema = schema;
        }

        @Override
        public WriteContext init(ParquetConfiguration configuration) {
            return new WriteContext(schema, Map.of("writer", "vantage exporter-parquet"));
        }

        /** Never called: the builder is given a {@link PlainParquetConfiguration}, not a Hadoop one. */
        @Override
        public WriteContext init(org.apache.hadoop.conf.Configuration configuration) {
            throw new UnsupportedOperationException("the Parquet exporter does not run with Hadoop");
        }

        @Override
        public void prepareForWrite(RecordConsumer recordConsumer) {
            this.consumer = recordConsumer;
        }

        @Override
        public void write(Row record) {
            record.writeTo(consumer);
        }
    }

    private static final class Builder extends ParquetWriter.Builder<Row, Builder> {
        private final MessageType schema;

        Builder(OutputFile file, MessageType schema) {
            super(file);
            this.schema = schema;
        }

        @Override
        protected Builder self() {
            return this;
        }

        @Override
        protected WriteSupport<Row> getWriteSupport(ParquetConfiguration configuration) {
            return new RowWriteSupport(schema);
        }

        /** Never called: see {@link RowWriteSupport#init(org.apache.hadoop.conf.Configuration)}. */
        @Override
        protected WriteSupport<Row> getWriteSupport(org.apache.hadoop.conf.Configuration configuration) {
            throw new UnsupportedOperationException("the Parquet exporter does not run with Hadoop");
        }
    }
}
