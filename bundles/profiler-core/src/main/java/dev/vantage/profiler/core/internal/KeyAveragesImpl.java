package dev.vantage.profiler.core.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

import dev.vantage.profiler.api.EventAverage;
import dev.vantage.profiler.api.KeyAverages;
import dev.vantage.profiler.api.SortKey;
import dev.vantage.profiler.spi.OpNames;

/**
 * Events grouped by name, computed in one pass over the recorded columns, and torch's table layout:
 * a right-aligned name column as wide as the longest name plus 4 (at most 55, longer names cut to 52 characters
 * and {@code ...}), 12-wide value columns, two spaces after every column, dashed separators and a
 * {@code Self CPU time total} footer.
 */
final class KeyAveragesImpl implements KeyAverages {

    private static final int MAX_NAME_WIDTH = 55;
    private static final int COLUMN_WIDTH = 12;
    private static final String SPACING = "  ";

    private final List<EventAverage> rows;
    private final long selfTotal;

    KeyAveragesImpl(List<EventAverage> rows) {
        this.rows = List.copyOf(rows);
        long total = 0;
        for (EventAverage r : rows) {
            total += r.selfCpuNanos();
        }
        this.selfTotal = total;
    }

    static KeyAveragesImpl of(RecordedEvents events) {
        // dense name ids: one accumulator slot per id seen, in order of first appearance
        int[] slotOfName = new int[64];
        List<long[]> acc = new ArrayList<>();   // {nameId, count, total, self}
        for (int t = 0; t < events.threads.size(); t++) {
            ThreadBuffer.Snapshot s = events.threads.get(t);
            long[] self = events.selfNanos[t];
            for (int i = 0; i < s.size(); i++) {
                int name = s.name(i);
                if (name >= slotOfName.length) {
                    slotOfName = java.util.Arrays.copyOf(slotOfName, Math.max(name + 1, slotOfName.length * 2));
                }
                int slot = slotOfName[name] - 1;
                if (slot < 0) {
                    acc.add(new long[] {name, 0, 0, 0});
                    slot = acc.size() - 1;
                    slotOfName[name] = slot + 1;
                }
                long[] a = acc.get(slot);
                a[1]++;
                a[2] += events.end(s, i) - s.start(i);
                a[3] += self[i];
            }
        }
        List<EventAverage> rows = new ArrayList<>(acc.size());
        for (long[] a : acc) {
            rows.add(new EventAverage(OpNames.name((int) a[0]), a[1], a[2], a[3]));
        }
        return new KeyAveragesImpl(rows);
    }

    @Override
    public List<EventAverage> rows() {
        return rows;
    }

    @Override
    public long selfCpuTotalNanos() {
        return selfTotal;
    }

    @Override
    public String table(SortKey sortBy, int rowLimit) {
        Objects.requireNonNull(sortBy, "sortBy");
        if (rowLimit < -1) {
            throw new IllegalArgumentException("row limit must be -1 (all) or 0 or more, not " + rowLimit);
        }
        List<EventAverage> sorted = new ArrayList<>(rows);
        sorted.sort(comparator(sortBy).reversed().thenComparing(EventAverage::key));
        if (rowLimit >= 0 && sorted.size() > rowLimit) {
            sorted = sorted.subList(0, rowLimit);
        }
        int nameWidth = 4;
        for (EventAverage r : rows) {
            nameWidth = Math.max(nameWidth, r.key().length() + 4);
        }
        nameWidth = Math.min(nameWidth, MAX_NAME_WIDTH);

        String[] headers = {"Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"};
        StringBuilder separator = new StringBuilder();
        separator.append("-".repeat(nameWidth)).append(SPACING);
        for (int i = 0; i < headers.length; i++) {
            separator.append("-".repeat(COLUMN_WIDTH)).append(SPACING);
        }
        StringBuilder out = new StringBuilder();
        out.append(separator).append('\n');
        appendRow(out, nameWidth, "Name", headers);
        out.append(separator).append('\n');
        for (EventAverage r : sorted) {
            appendRow(out, nameWidth, cut(r.key()), new String[] {
                TimeFormat.share(r.selfCpuNanos(), selfTotal),
                TimeFormat.time(r.selfCpuNanos()),
                TimeFormat.share(r.cpuTotalNanos(), selfTotal),
                TimeFormat.time(r.cpuTotalNanos()),
                TimeFormat.time(r.cpuTimeAvgNanos()),
                Long.toString(r.count()),
            });
        }
        out.append(separator).append('\n');
        out.append("Self CPU time total: ").append(TimeFormat.time(selfTotal)).append('\n');
        return out.toString();
    }

    private static String cut(String name) {
        return name.length() >= MAX_NAME_WIDTH - 3 ? name.substring(0, MAX_NAME_WIDTH - 3) + "..." : name;
    }

    private static void appendRow(StringBuilder out, int nameWidth, String name, String[] values) {
        out.append(pad(name, nameWidth)).append(SPACING);
        for (String v : values) {
            out.append(pad(v, COLUMN_WIDTH)).append(SPACING);
        }
        out.append('\n');
    }

    private static String pad(String s, int width) {
        return s.length() >= width ? s : " ".repeat(width - s.length()) + s;
    }

    private static Comparator<EventAverage> comparator(SortKey key) {
        return switch (key) {
            case CPU_TIME_TOTAL -> Comparator.comparingLong(EventAverage::cpuTotalNanos);
            case SELF_CPU_TIME_TOTAL -> Comparator.comparingLong(EventAverage::selfCpuNanos);
            case CPU_TIME -> Comparator.comparingDouble(EventAverage::cpuTimeAvgNanos);
            case COUNT -> Comparator.comparingLong(EventAverage::count);
        };
    }
}
