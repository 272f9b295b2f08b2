package dev.vantage.analysis.compare;

import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.vantage.trace.engine.summary.Comparison;
import dev.vantage.trace.engine.summary.Delta;

/** The table form of a {@link Comparison}: one aligned block per section, times and sizes with units. */
final class CompareTable {

    private static final int NAME_WIDTH = 44;

    private CompareTable() {
    }

    static void write(Comparison c, List<Delta> ops, List<Delta> kernels, Writer out) throws IOException {
        out.write("A: " + c.a().label() + " (" + c.a().source() + rank(c.a()) + ", " + c.a().stepCount()
                + " steps)\n");
        out.write("B: " + c.b().label() + " (" + c.b().source() + rank(c.b()) + ", " + c.b().stepCount()
                + " steps)\n\n");

        out.write(title("Operators by |change of self time|", ops.size(), c.ops().size()));
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"Name", "", "Calls A", "Calls B", "Self A", "Self B", "Δ Self", "Δ%", "Δ Total",
            "Δ Mean", "Δ p99"});
        for (Delta d : ops) {
            rows.add(new String[] {name(d.name()), flag(d), count(d, "count", false), count(d, "count", true),
                time(d, "selfNanos", false), time(d, "selfNanos", true), change(d, "selfNanos"),
                percent(d, "selfNanos"), change(d, "totalNanos"), change(d, "meanNanos"),
                change(d, "p99Nanos")});
        }
        align(rows, 2, out);

        out.write(title("Kernels by |change of total time|", kernels.size(), c.kernels().size()));
        rows = new ArrayList<>();
        rows.add(new String[] {"Name", "", "Type", "Count A", "Count B", "Total A", "Total B", "Δ Total", "Δ%",
            "Δ Mean", "Δ p99"});
        for (Delta d : kernels) {
            rows.add(new String[] {name(d.name()), flag(d), d.detail(), count(d, "count", false),
                count(d, "count", true), time(d, "totalNanos", false), time(d, "totalNanos", true),
                change(d, "totalNanos"), percent(d, "totalNanos"), change(d, "meanNanos"),
                change(d, "p99Nanos")});
        }
        align(rows, 3, out);

        out.write(title("Steps, paired by position (A / B)", c.steps().size(), c.steps().size()));
        rows = new ArrayList<>();
        rows.add(new String[] {"Step", "Steps A / B", "Time A", "Time B", "Δ Time", "Δ%", "Δ Kernel", "Δ Memcpy",
            "Δ Memset", "Δ Comm", "Δ Runtime", "Δ CPU op", "Δ Other"});
        for (Delta d : c.steps()) {
            rows.add(new String[] {d.name(), d.detail(), time(d, "durationNanos", false),
                time(d, "durationNanos", true), change(d, "durationNanos"), percent(d, "durationNanos"),
                change(d, "kernelNanos"), change(d, "memcpyNanos"), change(d, "memsetNanos"),
                change(d, "communicationNanos"), change(d, "runtimeNanos"),
                change(d, "cpuOpNanos"), change(d, "otherNanos")});
        }
        align(rows, 2, out);

        out.write(title("Peak memory per device", c.memory().size(), c.memory().size()));
        rows = new ArrayList<>();
        rows.add(new String[] {"Device", "", "Allocated A", "Allocated B", "Δ Allocated", "Δ%", "Reserved A",
            "Reserved B", "Δ Reserved"});
        for (Delta d : c.memory()) {
            rows.add(new String[] {d.name(), flag(d), bytes(d, "peakAllocatedBytes", false, false),
                bytes(d, "peakAllocatedBytes", true, false), bytes(d, "peakAllocatedBytes", false, true),
                percent(d, "peakAllocatedBytes"), bytes(d, "peakReservedBytes", false, false),
                bytes(d, "peakReservedBytes", true, false), bytes(d, "peakReservedBytes", false, true)});
        }
        align(rows, 2, out);
    }

    private static String rank(Comparison.Side s) {
        return s.rank() < 0 ? "" : ", rank " + s.rank();
    }

    private static String title(String what, int shown, int all) {
        return what + (shown < all ? " (top " + shown + " of " + all + ")" : " (" + all + ")") + "\n";
    }

    private static String name(String name) {
        String oneLine = name.replaceAll("\\s+", " ");
        return oneLine.length() <= NAME_WIDTH ? oneLine : oneLine.substring(0, NAME_WIDTH - 1) + "…";
    }

    private static String flag(Delta d) {
        return switch (d.status()) {
            case "new" -> "NEW";
            case "vanished" -> "VANISHED";
            default -> "";
        };
    }

    private static Long value(Delta d, String metric, boolean b) {
        Delta.Value v = d.metrics().get(metric);
        return b ? v.b() : v.a();
    }

    private static String count(Delta d, String metric, boolean b) {
        Long v = value(d, metric, b);
        return v == null ? "-" : v.toString();
    }

    private static String time(Delta d, String metric, boolean b) {
        Long v = value(d, metric, b);
        return v == null ? "-" : duration(v, false);
    }

    private static String change(Delta d, String metric) {
        Long v = d.metrics().get(metric).delta();
        return v == null ? "-" : duration(v, true);
    }

    private static String percent(Delta d, String metric) {
        Double p = d.metrics().get(metric).deltaPercent();
        return p == null ? "-" : String.format(Locale.ROOT, "%+.1f%%", p);
    }

    private static String bytes(Delta d, String metric, boolean b, boolean delta) {
        Delta.Value v = d.metrics().get(metric);
        Long x = delta ? v.delta() : b ? v.b() : v.a();
        if (x == null) {
            return "-";
        }
        double abs = Math.abs((double) x);
        String sign = delta && x > 0 ? "+" : x < 0 ? "-" : "";
        if (abs >= 1 << 30) {
            return sign + String.format(Locale.ROOT, "%.2f GiB", abs / (1 << 30));
        }
        if (abs >= 1 << 20) {
            return sign + String.format(Locale.ROOT, "%.2f MiB", abs / (1 << 20));
        }
        if (abs >= 1 << 10) {
            return sign + String.format(Locale.ROOT, "%.2f KiB", abs / (1 << 10));
        }
        return sign + (long) abs + " B";
    }

    /** Nanoseconds with a unit that keeps three to six significant digits: {@code 812.402 µs}, {@code 1.204 s}. */
    static String duration(long nanos, boolean signed) {
        if (nanos == 0) {
            return "0";
        }
        String sign = nanos < 0 ? "-" : signed && nanos > 0 ? "+" : "";
        double abs = Math.abs((double) nanos);
        if (abs >= 1e9) {
            return sign + String.format(Locale.ROOT, "%.3f s", abs / 1e9);
        }
        if (abs >= 1e6) {
            return sign + String.format(Locale.ROOT, "%.3f ms", abs / 1e6);
        }
        return sign + String.format(Locale.ROOT, "%.3f µs", abs / 1e3);
    }

    /** Left-aligns the first {@code left} columns (text), right-aligns the others (numbers). */
    private static void align(List<String[]> rows, int left, Writer out) throws IOException {
        int columns = rows.get(0).length;
        int[] width = new int[columns];
        for (String[] r : rows) {
            for (int i = 0; i < columns; i++) {
                width[i] = Math.max(width[i], r[i].length());
            }
        }
        for (String[] r : rows) {
            StringBuilder line = new StringBuilder("  ");
            for (int i = 0; i < columns; i++) {
                if (width[i] == 0) {
                    continue;
                }
                String cell = r[i];
                String pad = " ".repeat(width[i] - cell.length());
                line.append(i < left ? cell + pad : pad + cell).append(i + 1 < columns ? "  " : "");
            }
            out.write(line.toString().stripTrailing());
            out.write('\n');
        }
        out.write('\n');
    }
}
