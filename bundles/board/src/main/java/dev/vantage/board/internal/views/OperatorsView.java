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
import dev.vantage.trace.engine.OperatorStacks;
import dev.vantage.trace.engine.summary.OpStats;

/**
 * The TensorBoard plugin's Operator view: host operators ({@code cpu_op}) by name and by name and input shape, with
 * self and total host time, the device time they launched, mean and p99; and the ten with the most self time.
 */
@Component(service = BoardView.class)
public class OperatorsView implements BoardView {

    private static final List<Column> COLUMNS = List.of(new Column("Name", Unit.TEXT),
            new Column("Calls", Unit.NUMBER), new Column("Self host", Unit.NANOS),
            new Column("Total host", Unit.NANOS), new Column("Mean", Unit.NANOS), new Column("p99", Unit.NANOS),
            new Column("Self device", Unit.NANOS), new Column("Total device", Unit.NANOS));

    @Override
    public String id() {
        return "operators";
    }

    @Override
    public String title() {
        return "Operators";
    }

    @Override
    public int order() {
        return 20;
    }

    @Override
    public boolean appliesTo(BoardRun run) {
        return run.summary().ops().stream().anyMatch(OpStats::isOperator);
    }

    @Override
    public List<ViewSection> render(BoardRun run) {
        List<OpStats> ops = sorted(run.summary().ops());
        List<ViewSection> sections = new ArrayList<>();
        Map<String, Double> top = new LinkedHashMap<>();
        long rest = 0;
        for (int i = 0; i < ops.size(); i++) {
            if (i < 10) {
                top.put(ops.get(i).name(), Charts.ms(ops.get(i).selfNanos()));
            } else {
                rest += ops.get(i).selfNanos();
            }
        }
        if (rest > 0) {
            top.put("Other", Charts.ms(rest));
        }
        sections.add(ViewSection.chart("self-chart", "Host self time", "The ten operators with the most self time,"
                + " in milliseconds.", Charts.pie("Host self time", top)));
        sections.add(ViewSection.table("operators", "Operators by name", "Host operators (cpu_op), most self time"
                + " first. Times in µs; p99 of one call's total time.", COLUMNS, rows(ops, false)));
        List<Column> shaped = new ArrayList<>(COLUMNS);
        shaped.add(1, new Column("Input shapes", Unit.TEXT));
        sections.add(ViewSection.table("operators-by-shape", "Operators by name and input shape", "Times in µs.",
                shaped, rows(sorted(run.summary().opsByShape()), true)));
        BoardRun.Table stacks = run.analysis("operators_by_stack");
        if (stacks != null && !stacks.rows().isEmpty()) {
            List<List<Object>> rows = stacks.rows().stream().map(r -> List.of(r.get(1), r.get(2), r.get(3), r.get(4),
                    r.get(5), r.get(6), r.get(7))).toList();
            sections.add(ViewSection.table("operators-by-stack", "Operators by name and call stack", "The innermost "
                    + OperatorStacks.DEPTH + " frames of each op's Call stack (recorded with with_stack), as torch's"
                    + " key_averages(group_by_stack_n=" + OperatorStacks.DEPTH + ") groups them. Times in µs.",
                    List.of(new Column("Name", Unit.TEXT), new Column("Call stack", Unit.TEXT),
                            new Column("Calls", Unit.NUMBER), new Column("Self host", Unit.NANOS),
                            new Column("Total host", Unit.NANOS), new Column("Self device", Unit.NANOS),
                            new Column("Total device", Unit.NANOS)), rows));
        }
        return sections;
    }

    private static List<OpStats> sorted(List<OpStats> ops) {
        return ops.stream().filter(OpStats::isOperator)
                .sorted(Comparator.comparingLong(OpStats::selfNanos).reversed()).toList();
    }

    private static List<List<Object>> rows(List<OpStats> ops, boolean shapes) {
        List<List<Object>> rows = new ArrayList<>();
        for (OpStats o : ops) {
            List<Object> row = new ArrayList<>(List.of(o.name(), o.count(), o.selfNanos(), o.totalNanos(),
                    o.meanNanos(), o.p99Nanos(), o.deviceSelfNanos(), o.deviceTotalNanos()));
            if (shapes) {
                row.add(1, o.inputShapes() == null ? "" : o.inputShapes());
            }
            rows.add(row);
        }
        return rows;
    }
}
