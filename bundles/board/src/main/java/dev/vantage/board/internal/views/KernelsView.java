package dev.vantage.board.internal.views;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.osgi.service.component.annotations.Component;

import dev.vantage.board.api.BoardRun;
import dev.vantage.board.api.BoardView;
import dev.vantage.board.api.ViewSection;
import dev.vantage.board.api.ViewSection.Column;
import dev.vantage.board.api.ViewSection.Unit;
import dev.vantage.trace.engine.summary.KernelLaunchStats;
import dev.vantage.trace.engine.summary.KernelStats;

/**
 * The TensorBoard plugin's Kernel view: device work (kernels, copies, fills, communication) by name and by name and
 * the operator that launched it, and HTA's kernel-type breakdown as a pie.
 */
@Component(service = BoardView.class)
public class KernelsView implements BoardView {

    @Override
    public String id() {
        return "kernels";
    }

    @Override
    public String title() {
        return "Kernels";
    }

    @Override
    public int order() {
        return 30;
    }

    @Override
    public boolean appliesTo(BoardRun run) {
        return !run.summary().kernels().isEmpty();
    }

    @Override
    public List<ViewSection> render(BoardRun run) {
        List<ViewSection> sections = new ArrayList<>();
        BoardRun.Table types = run.analysis("kernel_types");
        if (types != null && !types.rows().isEmpty()) {
            Map<String, Double> slices = new LinkedHashMap<>();
            int name = types.columns().indexOf("kernel_type");
            int sum = types.columns().indexOf("sum");
            types.rows().forEach(r -> slices.put(String.valueOf(r.get(name)), ((Number) r.get(sum)).doubleValue()));
            sections.add(ViewSection.chart("types-chart", "Kernel time by type", "HTA's kernel breakdown: computation,"
                    + " communication, memory, and their overlap, in µs.", Charts.pie("Kernel time", slices)));
        }
        List<Column> columns = new ArrayList<>(List.of(new Column("Name", Unit.TEXT), new Column("Type", Unit.TEXT),
                new Column("Count", Unit.NUMBER), new Column("Total", Unit.NANOS), new Column("Mean", Unit.NANOS),
                new Column("Min", Unit.NANOS), new Column("Max", Unit.NANOS), new Column("p99", Unit.NANOS)));
        sections.add(ViewSection.table("kernels", "Kernels by name", "Most total time first. Times in µs.", columns,
                rows(run.summary().kernels(), false)));
        List<Column> byOp = new ArrayList<>(columns);
        byOp.add(2, new Column("Operator", Unit.TEXT));
        sections.add(ViewSection.table("kernels-by-operator", "Kernels by name and operator", "The operator that"
                + " launched the work, by External id. Times in µs.", byOp, rows(run.summary().kernelsByOp(), true)));
        List<KernelLaunchStats> launches = run.summary().kernelLaunches();
        if (!launches.isEmpty()) {
            List<List<Object>> rows = new ArrayList<>();
            launches.stream().sorted(Comparator.comparingLong(KernelLaunchStats::totalNanos).reversed()).forEach(k ->
                    rows.add(java.util.Arrays.asList(k.name(), k.geometry(), k.count(), k.totalNanos(),
                            known(k.meanBlocksPerSm()), known(k.meanWarpsPerSm()), known(k.meanOccupancyPct()),
                            k.tensorCores() ? "yes" : "no")));
            sections.add(ViewSection.table("kernel-launches", "Kernels by launch geometry", "The TensorBoard plugin's"
                    + " kernel view: grid, block, registers per thread and shared memory as CUPTI recorded them; blocks"
                    + " and warps per SM and the estimated achieved occupancy are means weighted by duration; Tensor"
                    + " Core use is told by the kernel's name. Times in µs.", List.of(new Column("Name", Unit.TEXT),
                            new Column("Geometry", Unit.TEXT), new Column("Count", Unit.NUMBER),
                            new Column("Total", Unit.NANOS), new Column("Blocks per SM", Unit.NUMBER),
                            new Column("Warps per SM", Unit.NUMBER), new Column("Achieved occupancy %", Unit.NUMBER),
                            new Column("Tensor Cores", Unit.TEXT)), rows));
        }
        return sections;
    }

    /** A mean no kernel of the row carried ({@code NaN}) is an empty cell. */
    private static Double known(Double mean) {
        return mean == null || mean.isNaN() ? null : mean;
    }

    private static List<List<Object>> rows(List<KernelStats> kernels, boolean op) {
        List<List<Object>> rows = new ArrayList<>();
        kernels.stream().sorted(Comparator.comparingLong(KernelStats::totalNanos).reversed()).forEach(k -> {
            List<Object> row = new ArrayList<>(List.of(k.name(), k.type(), k.count(), k.totalNanos(), k.meanNanos(),
                    k.minNanos(), k.maxNanos(), k.p99Nanos()));
            if (op) {
                row.add(2, k.op() == null ? "" : k.op());
            }
            rows.add(row);
        });
        return rows;
    }
}
