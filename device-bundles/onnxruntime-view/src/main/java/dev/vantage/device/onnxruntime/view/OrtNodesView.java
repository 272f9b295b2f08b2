package dev.vantage.device.onnxruntime.view;

import java.io.IOException;
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
import dev.vantage.trace.engine.DeviceRows;

/**
 * ONNX Runtime's nodes, one row each: the operator, the execution provider, how often it ran and for how long, and the
 * memory ONNX Runtime's profiler gives per node (output, activation and parameter bytes); with the nodes of the largest
 * outputs as a chart. From a Vantage run of the {@code ort} device or from ONNX Runtime's own
 * {@code onnxruntime_profile_*.json}: both carry the node's name and sizes in each kernel's arguments.
 */
@Component(service = BoardView.class)
public class OrtNodesView implements BoardView {

    /** The device type of ONNX Runtime's kernels in the trace engine. */
    static final String DEVICE = "ort";

    @Override
    public String id() {
        return "onnxruntime-nodes";
    }

    @Override
    public String title() {
        return "ONNX Runtime nodes";
    }

    @Override
    public int order() {
        return 70;
    }

    @Override
    public boolean appliesTo(BoardRun run) {
        return run.summary().format().equals("onnxruntime") || run.tags().getOrDefault("device", "").startsWith(DEVICE)
                || "onnx".equals(run.tags().get("workload"));
    }

    /** One node's sums. */
    static final class Node {
        final String name;
        final String op;
        final String provider;
        long runs;
        long nanos;
        long output = -1;
        long activation = -1;
        long parameter = -1;

        Node(String name, String op, String provider) {
            this.name = name;
            this.op = op;
            this.provider = provider;
        }

        List<Object> row() {
            List<Object> r = new ArrayList<>();
            r.add(name);
            r.add(op);
            r.add(provider);
            r.add(runs);
            r.add(nanos);
            r.add(nanos / Math.max(1, runs));
            r.add(output < 0 ? null : output);
            r.add(activation < 0 ? null : activation);
            r.add(parameter < 0 ? null : parameter);
            return r;
        }
    }

    /** The nodes of a trace, in order of first run. */
    static List<Node> nodes(DeviceRows rows) {
        Map<String, Node> nodes = new LinkedHashMap<>();
        for (int i = 0; i < rows.size(); i++) {
            if (!DEVICE.equals(rows.deviceType(i))) {
                continue;
            }
            Map<String, String> args = rows.args(i);
            String op = rows.name(i);
            String name = args.getOrDefault("Node name", op);
            Node n = nodes.computeIfAbsent(name + '\u0000' + op, k -> new Node(name, op,
                    args.getOrDefault("provider", "")));
            n.runs++;
            n.nanos += rows.duration(i);
            n.output = Math.max(n.output, bytes(args.get("output_size")));
            n.activation = Math.max(n.activation, bytes(args.get("activation_size")));
            n.parameter = Math.max(n.parameter, bytes(args.get("parameter_size")));
        }
        return new ArrayList<>(nodes.values());
    }

    private static long bytes(String value) {
        if (value == null) {
            return -1;
        }
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    @Override
    public List<ViewSection> render(BoardRun run) throws IOException {
        List<Node> nodes = run.read(trace -> nodes(trace.data().device()));
        if (nodes.isEmpty()) {
            return List.of(ViewSection.text("nodes", "Nodes", "This run has no ONNX Runtime node."));
        }
        List<Node> largest = nodes.stream().filter(n -> n.output >= 0)
                .sorted(Comparator.comparingLong((Node n) -> n.output).reversed()).limit(15).toList();
        List<ViewSection> sections = new ArrayList<>();
        if (!largest.isEmpty()) {
            Map<String, Object> chart = new LinkedHashMap<>();
            chart.put("tooltip", Map.of("trigger", "axis", "axisPointer", Map.of("type", "shadow")));
            chart.put("grid", Map.of("left", 220, "right", 30, "top", 20, "bottom", 30));
            chart.put("xAxis", Map.of("type", "value", "name", "KiB"));
            chart.put("yAxis", Map.of("type", "category", "inverse", true, "data",
                    largest.stream().map(n -> n.name).toList()));
            chart.put("series", List.of(Map.of("name", "Output", "type", "bar", "data",
                    largest.stream().map(n -> Math.round(n.output / 1024.0 * 1000) / 1000.0).toList())));
            sections.add(ViewSection.chart("largest-outputs", "Largest outputs", "The nodes whose output is largest,"
                    + " in KiB, as ONNX Runtime's profiler measured it.", chart));
        }
        sections.add(ViewSection.table("nodes", "Nodes", "Each node of the model, in order of its first run; sizes are"
                + " the largest ONNX Runtime reported for the node. Times in µs.", List.of(
                        new Column("Node", Unit.TEXT), new Column("Operator", Unit.TEXT),
                        new Column("Provider", Unit.TEXT), new Column("Runs", Unit.NUMBER),
                        new Column("Total", Unit.NANOS), new Column("Mean", Unit.NANOS),
                        new Column("Output", Unit.BYTES), new Column("Activation", Unit.BYTES),
                        new Column("Parameter", Unit.BYTES)),
                nodes.stream().map(Node::row).toList()));
        return sections;
    }
}
