package dev.vantage.analysis.compare;

import java.io.IOException;
import java.io.Writer;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.vantage.analysis.CsvRows;
import dev.vantage.analysis.Options;
import dev.vantage.trace.engine.summary.Comparison;
import dev.vantage.trace.engine.summary.Delta;

/**
 * Writes a {@link Comparison} as an aligned table with units, as CSV (one row per item and metric, raw
 * nanoseconds, bytes and counts), or as JSON ({@code schemas/compare.schema.json}).
 */
public enum CompareFormat {
    /** Aligned columns with units, for a terminal. */
    TABLE,
    /** {@code section,name,detail,status,metric,a,b,delta,delta_pct}: raw numbers. */
    CSV,
    /** The document {@code compare.schema.json} describes. */
    JSON;

    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
            .disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);

    /** Returns the format the command line asked for. */
    public static CompareFormat of(Options.Format format) {
        return valueOf(format.name());
    }

    /**
     * Writes a comparison.
     *
     * @param c the comparison
     * @param top the most operators and kernels to write, the largest changes; -1 for all
     * @param out where to write; not closed
     */
    public void write(Comparison c, int top, Writer out) throws IOException {
        List<Delta> ops = top < 0 ? c.ops() : c.ops().subList(0, Math.min(top, c.ops().size()));
        List<Delta> kernels = top < 0 ? c.kernels() : c.kernels().subList(0, Math.min(top, c.kernels().size()));
        switch (this) {
            case TABLE -> CompareTable.write(c, ops, kernels, out);
            case CSV -> csv(c, ops, kernels, out);
            case JSON -> json(c, ops, kernels, out);
            default -> throw new AssertionError(this);
        }
        out.flush();
    }

    private static void csv(Comparison c, List<Delta> ops, List<Delta> kernels, Writer out) throws IOException {
        try (CsvRows csv = new CsvRows(out, "\n")) {
            csv.row(List.of("section", "name", "detail", "status", "metric", "a", "b", "delta", "delta_pct"));
            String[] sections = {"ops", "kernels", "steps", "memory"};
            List<List<Delta>> rows = List.of(ops, kernels, c.steps(), c.memory());
            for (int s = 0; s < sections.length; s++) {
                for (Delta d : rows.get(s)) {
                    for (Map.Entry<String, Delta.Value> m : d.metrics().entrySet()) {
                        Delta.Value v = m.getValue();
                        csv.row(Arrays.asList(sections[s], d.name(), d.detail(), d.status(), m.getKey(),
                                text(v.a()), text(v.b()), text(v.delta()), v.deltaPercent() == null ? ""
                                        : String.format(Locale.ROOT, "%.2f", v.deltaPercent())));
                    }
                }
            }
        }
    }

    private static String text(Long value) {
        return value == null ? "" : value.toString();
    }

    private static void json(Comparison c, List<Delta> ops, List<Delta> kernels, Writer out) throws IOException {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("schemaVersion", 1);
        side(root.putObject("a"), c.a());
        side(root.putObject("b"), c.b());
        root.put("opCount", c.ops().size());
        root.put("kernelCount", c.kernels().size());
        rows(root.putArray("ops"), ops);
        rows(root.putArray("kernels"), kernels);
        rows(root.putArray("steps"), c.steps());
        rows(root.putArray("memory"), c.memory());
        MAPPER.writeValue(out, root);
        out.write('\n');
    }

    private static void side(ObjectNode node, Comparison.Side s) {
        node.put("label", s.label());
        node.put("source", s.source());
        node.put("rank", s.rank());
        node.put("steps", s.stepCount());
    }

    private static void rows(ArrayNode array, List<Delta> rows) {
        for (Delta d : rows) {
            ObjectNode row = array.addObject();
            row.put("name", d.name());
            row.put("detail", d.detail());
            row.put("status", d.status());
            ObjectNode metrics = row.putObject("metrics");
            for (Map.Entry<String, Delta.Value> m : d.metrics().entrySet()) {
                ObjectNode v = metrics.putObject(m.getKey());
                Delta.Value value = m.getValue();
                v.put("a", value.a());
                v.put("b", value.b());
                v.put("delta", value.delta());
                v.put("deltaPercent", value.deltaPercent());
            }
        }
    }
}
