package dev.vantage.trace.engine;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

import dev.vantage.profiler.api.EventAverage;
import dev.vantage.profiler.api.SortKey;
import dev.vantage.profiler.api.TableOptions;
import dev.vantage.profiler.trace.TraceTime;

/**
 * torch's {@code key_averages().table()} layout: a right-aligned name column as wide as the longest name plus 4
 * (at most 55; longer names cut to 52 characters and {@code ...}), 12-wide value columns, two spaces after every
 * column, dashed separators and a footer. Columns appear as torch shows them: device columns named after the
 * device ({@code Self NPU}, {@code NPU total}) when there is device time, {@code Input Shapes} when grouped by
 * shape, a FLOPs column scaled to the smallest count, and {@code Source Location} when grouped by stack. Two
 * differences: the FLOPs column comes before Source Location in header and rows alike (torch 1.13 to recent
 * versions swap them in the rows), and {@code Dur p50}, {@code Dur p99} and {@code Dur max} columns are added on
 * request. Rows with equal sort values are ordered by name, so the output is deterministic.
 */
final class TableFormatter {

    private static final int MAX_NAME_WIDTH = 55;
    private static final int COLUMN_WIDTH = 12;
    private static final int MAX_SHAPES_WIDTH = 80;
    private static final int MAX_SOURCE_WIDTH = 75;
    private static final String SPACING = "  ";
    private static final String[] FLOP_UNITS = {"FLOPs", "KFLOPs", "MFLOPs", "GFLOPs", "TFLOPs", "PFLOPs"};

    private TableFormatter() {
    }

    /** One column: header, width, whether values align left. */
    private record Column(String header, int width, boolean left) {
    }

    static String format(KeyAveragesImpl averages, TableOptions options) {
        List<EventAverage> rows = new ArrayList<>(averages.rows());
        rows.sort(comparator(options.sortBy()).reversed().thenComparing(EventAverage::key));
        if (options.rowLimit() >= 0 && rows.size() > options.rowLimit()) {
            rows = rows.subList(0, options.rowLimit());
        }
        String device = averages.deviceType().toUpperCase(Locale.ROOT);
        boolean hasDevice = !device.isEmpty();
        boolean hasShapes = averages.rows().stream().anyMatch(r -> !r.inputShapes().isEmpty());
        boolean hasStack = averages.rows().stream().anyMatch(r -> !r.stack().isEmpty());
        long minFlops = averages.rows().stream().mapToLong(EventAverage::flops).filter(f -> f > 0).min().orElse(0);
        int flopUnit = minFlops > 0 ? (int) Math.max(0, Math.min(Math.log10(minFlops) / 3, FLOP_UNITS.length - 1))
                : -1;

        int nameWidth = 4;
        int shapesWidth = 4;
        int sourceWidth = 4;
        for (EventAverage r : averages.rows()) {
            nameWidth = Math.max(nameWidth, r.key().length() + 4);
            shapesWidth = Math.max(shapesWidth, r.inputShapes().length() + 4);
            for (String frame : r.stack()) {
                sourceWidth = Math.max(sourceWidth, frame.length() + 4);
            }
        }
        nameWidth = Math.min(nameWidth, MAX_NAME_WIDTH);
        shapesWidth = Math.min(Math.max(shapesWidth, "Input Shapes".length()), MAX_SHAPES_WIDTH);
        sourceWidth = Math.min(Math.max(sourceWidth, "Source Location".length()), MAX_SOURCE_WIDTH);

        List<Column> columns = new ArrayList<>();
        columns.add(new Column("Name", nameWidth, false));
        for (String h : new String[] {"Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"}) {
            columns.add(new Column(h, COLUMN_WIDTH, false));
        }
        if (hasDevice) {
            for (String h : new String[] {"Self " + device, "Self " + device + " %", device + " total",
                    device + " time avg"}) {
                columns.add(new Column(h, COLUMN_WIDTH, false));
            }
        }
        boolean hasMemory = averages.memoryProfiled;
        String memDevice = averages.memoryDeviceType.toUpperCase(Locale.ROOT);
        if (hasMemory) {
            columns.add(new Column("CPU Mem", COLUMN_WIDTH, false));
            columns.add(new Column("Self CPU Mem", COLUMN_WIDTH, false));
            if (!memDevice.isEmpty()) {
                columns.add(new Column(memDevice + " Mem", COLUMN_WIDTH, false));
                columns.add(new Column("Self " + memDevice + " Mem", COLUMN_WIDTH, false));
            }
        }
        if (options.percentiles()) {
            for (String h : new String[] {"Dur p50", "Dur p99", "Dur max"}) {
                columns.add(new Column(h, COLUMN_WIDTH, false));
            }
        }
        columns.add(new Column("# of Calls", COLUMN_WIDTH, false));
        if (hasShapes) {
            columns.add(new Column("Input Shapes", shapesWidth, false));
        }
        if (flopUnit >= 0) {
            columns.add(new Column("Total " + FLOP_UNITS[flopUnit], COLUMN_WIDTH, false));
        }
        if (hasStack) {
            columns.add(new Column("Source Location", sourceWidth, true));
        }

        StringBuilder separator = new StringBuilder();
        for (Column c : columns) {
            separator.append("-".repeat(c.width())).append(SPACING);
        }
        StringBuilder out = new StringBuilder();
        if (options.topLevelOnly()) {
            out.append("=".repeat(separator.length())).append('\n');
            out.append("This report only display top-level ops statistics\n");
        }
        out.append(separator).append('\n');
        List<String> headers = new ArrayList<>();
        columns.forEach(c -> headers.add(c.header()));
        appendRow(out, columns, headers);
        out.append(separator).append('\n');
        long selfCpuTotal = averages.selfCpuTotalNanos();
        long selfDeviceTotal = averages.selfDeviceTotalNanos();
        double flopScale = flopUnit >= 0 ? Math.pow(10, -3.0 * flopUnit) : 0;
        for (EventAverage r : rows) {
            List<String> v = new ArrayList<>();
            v.add(cut(r.key()));
            v.add(share(r.selfCpuNanos(), selfCpuTotal));
            v.add(TraceTime.human(r.selfCpuNanos()));
            v.add(share(r.cpuTotalNanos(), selfCpuTotal));
            v.add(TraceTime.human(r.cpuTotalNanos()));
            v.add(TraceTime.human(r.cpuTimeAvgNanos()));
            if (hasDevice) {
                v.add(TraceTime.human(r.selfDeviceNanos()));
                v.add(share(r.selfDeviceNanos(), selfDeviceTotal));
                v.add(TraceTime.human(r.deviceTotalNanos()));
                v.add(TraceTime.human(r.deviceTimeAvgNanos()));
            }
            if (hasMemory) {
                v.add(memory(r.cpuMemoryBytes()));
                v.add(memory(r.selfCpuMemoryBytes()));
                if (!memDevice.isEmpty()) {
                    v.add(memory(r.deviceMemoryBytes()));
                    v.add(memory(r.selfDeviceMemoryBytes()));
                }
            }
            if (options.percentiles()) {
                v.add(TraceTime.human(r.p50Nanos()));
                v.add(TraceTime.human(r.p99Nanos()));
                v.add(TraceTime.human(r.maxNanos()));
            }
            v.add(Long.toString(r.count()));
            if (hasShapes) {
                String shapes = r.inputShapes();
                v.add(shapes.length() > shapesWidth ? shapes.substring(0, shapesWidth) : shapes);
            }
            if (flopUnit >= 0) {
                v.add(r.flops() <= 0 ? "--" : String.format(Locale.ROOT, "%8.3f", r.flops() * flopScale));
            }
            if (hasStack) {
                v.add(r.stack().isEmpty() ? "" : trimPath(r.stack().get(0), sourceWidth));
            }
            appendRow(out, columns, v);
            if (hasStack) {
                List<String> blank = new ArrayList<>();
                for (int i = 0; i < columns.size() - 1; i++) {
                    blank.add("");
                }
                for (String frame : r.stack().subList(Math.min(1, r.stack().size()), r.stack().size())) {
                    List<String> line = new ArrayList<>(blank);
                    line.add(trimPath(frame, sourceWidth));
                    appendRow(out, columns, line);
                }
                List<String> empty = new ArrayList<>(blank);
                empty.add("");
                appendRow(out, columns, empty);
            }
        }
        out.append(separator).append('\n');
        out.append("Self CPU time total: ").append(TraceTime.human(selfCpuTotal)).append('\n');
        if (hasDevice) {
            out.append("Self ").append(device).append(" time total: ").append(TraceTime.human(selfDeviceTotal))
                    .append('\n');
        }
        if (averages.gcPauses() > 0) {
            out.append("GC pauses: ").append(averages.gcPauses()).append(", total ")
                    .append(TraceTime.human(averages.gcNanos())).append(" (on the trace's JVM row, not ops)\n");
        }
        for (String emulated : averages.emulatedDevices) {
            out.append(emulated).append(" is emulated: its times come from an emulated driver, not hardware\n");
        }
        for (String labelled : averages.labelledDevices) {
            out.append(labelled).append('\n');
        }
        if (averages.droppedHostEvents() > 0) {
            out.append("Dropped host events: ").append(averages.droppedHostEvents())
                    .append(" (the event buffer limit was reached; the trace has the count per thread)\n");
        }
        if (averages.droppedDeviceRecords() > 0) {
            out.append("Dropped device records: ").append(averages.droppedDeviceRecords())
                    .append(" (reported by the device sessions; see the trace metadata)\n");
        }
        return out.toString();
    }

    /** torch's {@code _format_memory}: {@code 3.74 Kb}, {@code -596 b}, 1024-based. */
    static String memory(long bytes) {
        long kb = 1024;
        long mb = kb * 1024;
        long gb = mb * 1024;
        long abs = Math.abs(bytes);
        if (abs >= gb) {
            return String.format(Locale.ROOT, "%.2f Gb", bytes / (double) gb);
        }
        if (abs >= mb) {
            return String.format(Locale.ROOT, "%.2f Mb", bytes / (double) mb);
        }
        if (abs >= kb) {
            return String.format(Locale.ROOT, "%.2f Kb", bytes / (double) kb);
        }
        return bytes + " b";
    }

    /** torch's {@code trim_path}: keeps the end of a frame that is too long, with {@code ...} in front. */
    private static String trimPath(String path, int width) {
        if (path.length() <= width) {
            return path;
        }
        String tail = path.substring(path.length() - width);
        return tail.length() > 3 ? "..." + tail.substring(3) : tail;
    }

    private static String cut(String name) {
        return name.length() >= MAX_NAME_WIDTH - 3 ? name.substring(0, MAX_NAME_WIDTH - 3) + "..." : name;
    }

    private static void appendRow(StringBuilder out, List<Column> columns, List<String> values) {
        for (int i = 0; i < columns.size(); i++) {
            Column c = columns.get(i);
            String s = values.get(i);
            int pad = Math.max(0, c.width() - s.length());
            if (c.left()) {
                out.append(s).append(" ".repeat(pad));
            } else {
                out.append(" ".repeat(pad)).append(s);
            }
            out.append(SPACING);
        }
        out.append('\n');
    }

    private static Comparator<EventAverage> comparator(SortKey key) {
        return switch (key) {
            case CPU_TIME_TOTAL -> Comparator.comparingLong(EventAverage::cpuTotalNanos);
            case SELF_CPU_TIME_TOTAL -> Comparator.comparingLong(EventAverage::selfCpuNanos);
            case CPU_TIME -> Comparator.comparingDouble(EventAverage::cpuTimeAvgNanos);
            case DEVICE_TIME_TOTAL -> Comparator.comparingLong(EventAverage::deviceTotalNanos);
            case SELF_DEVICE_TIME_TOTAL -> Comparator.comparingLong(EventAverage::selfDeviceNanos);
            case DEVICE_TIME -> Comparator.comparingDouble(EventAverage::deviceTimeAvgNanos);
            case COUNT -> Comparator.comparingLong(EventAverage::count);
            case CPU_TIME_P99 -> Comparator.comparingLong(EventAverage::p99Nanos);
            case CPU_MEMORY_USAGE -> Comparator.comparingLong(EventAverage::cpuMemoryBytes);
            case SELF_CPU_MEMORY_USAGE -> Comparator.comparingLong(EventAverage::selfCpuMemoryBytes);
            case DEVICE_MEMORY_USAGE -> Comparator.comparingLong(EventAverage::deviceMemoryBytes);
            case SELF_DEVICE_MEMORY_USAGE -> Comparator.comparingLong(EventAverage::selfDeviceMemoryBytes);
        };
    }

    /** {@code 12.34%} of a total; {@code NaN} when the total is 0, as torch prints it. */
    static String share(long part, long total) {
        if (total == 0) {
            return "NaN";
        }
        return String.format(java.util.Locale.ROOT, "%.2f%%", part * 100.0 / total);
    }
}
