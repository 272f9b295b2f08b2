package dev.vantage.analysis.sql;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.util.Arrays;
import java.util.List;

import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;
import org.junit.Test;

/** {@code analyze --format csv}: one block per analysis, read back with Apache Commons CSV. */
public class ResultWriterTest {

    private static final String NL = System.lineSeparator();

    private static String csv(ResultTable... tables) throws IOException {
        StringWriter out = new StringWriter();
        ResultWriter.write("csv", List.of(tables), out);
        return out.toString();
    }

    @Test
    public void ordinaryValuesAreTheirTextJoinedByCommasInBlocks() throws IOException {
        ResultTable steps = new ResultTable("step_time", List.of("job_id", "rank", "step_ns", "vs_median"),
                List.of(Arrays.asList("job-1", 0L, 1_000_000L, 1.0), Arrays.asList("job-1", 1L, null, 6.169571E7)));
        ResultTable ops = new ResultTable("top_ops", List.of("name", "straggler"),
                List.of(Arrays.asList("aten::mm", true)));
        assertEquals("# step_time" + NL
                + "job_id,rank,step_ns,vs_median" + NL
                + "job-1,0,1000000,1.0" + NL
                + "job-1,1,,61695710" + NL
                + NL
                + "# top_ops" + NL
                + "name,straggler" + NL
                + "aten::mm,true" + NL, csv(steps, ops));
    }

    @Test
    public void aValueWithACommaAQuoteAndANewlineReadsBackWhole() throws IOException {
        String odd = "aten::odd,\"op\"\nsecond line";
        ResultTable ops = new ResultTable("top_ops", List.of("job_id", "name", "self_ns"),
                List.of(Arrays.asList("job-1", odd, 5L), Arrays.asList("job-1", "aten::mm", 7L)));
        ResultTable stragglers = new ResultTable("stragglers", List.of("job_id", "rank"),
                List.of(Arrays.asList("job-1", 3L)));
        String text = csv(ops, stragglers);
        assertEquals("# top_ops" + NL + "job_id,name,self_ns" + NL
                + "job-1,\"aten::odd,\"\"op\"\"\nsecond line\",5" + NL
                + "job-1,aten::mm,7" + NL + NL
                + "# stragglers" + NL + "job_id,rank" + NL + "job-1,3" + NL, text);

        List<CSVRecord> records = CSVFormat.RFC4180.builder().setCommentMarker('#').setIgnoreEmptyLines(true)
                .build().parse(new StringReader(text)).getRecords();
        assertEquals(5, records.size());
        assertEquals("top_ops", records.get(0).getComment().trim());
        assertEquals(List.of("job_id", "name", "self_ns"), records.get(0).toList());
        assertEquals(List.of("job-1", odd, "5"), records.get(1).toList());
        assertEquals(List.of("job-1", "aten::mm", "7"), records.get(2).toList());
        assertEquals("stragglers", records.get(3).getComment().trim());
        assertEquals(List.of("job-1", "3"), records.get(4).toList());
    }

    /**
     * The table format puts a blank line between blocks and none before the first: with no summary to print (no
     * step_time asked for), the output begins with the first table's title.
     */
    @Test
    public void theTableFormatBeginsWithItsFirstBlock() throws IOException {
        ResultTable temporal = new ResultTable("temporal", List.of("job_id", "rank", "idle_time(us)"),
                List.of(Arrays.asList("job-1", 0L, 12.5)));
        ResultTable idle = new ResultTable("idle", List.of("job_id", "rank"), List.of(Arrays.asList("job-1", 0L)));
        StringWriter out = new StringWriter();
        ResultWriter.write("table", List.of(temporal, idle), out);
        String text = out.toString();
        assertTrue(text, text.startsWith("== temporal (1 row)" + NL));
        assertTrue(text, text.contains(NL + NL + "== idle (1 row)" + NL));
    }
}
