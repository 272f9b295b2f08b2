package dev.vantage.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import java.util.List;
import java.util.Map;

import org.junit.Test;

/**
 * What the launcher hands the platform: the parsed command with its words, and the version it shares it at, read
 * from an {@code Export-Package} header. (The header of the built jar itself is read by every platform verb the
 * integration tests run through the distribution: bnd writes it when the jar is made, after these tests.)
 */
public class LaunchedCommandTest {

    @Test
    public void aParsedCommandKeepsTheWordsItWasParsedFrom() throws UsageException {
        List<String> words = List.of("run", "matmul", "--steps", "3", "--profile");
        ParsedCommand c = Cli.parse(words, Map.of());
        assertEquals(words, c.args());
        assertEquals(3, c.options(RunCommand.class).steps());
    }

    @Test
    public void theVersionIsReadByTheHeaderGrammarWhateverTheOrderAndQuoting() {
        String p = "dev.vantage.cli";
        assertEquals("1.2.0", ExportedVersion.of("dev.vantage.cli;version=\"1.2.0\"", p));
        assertEquals("1.2.0", ExportedVersion.of("dev.vantage.cli;uses:=\"picocli,picocli.CommandLine\";"
                + "version=\"1.2.0\"", p));
        assertEquals("3.0.1", ExportedVersion.of("a.b;version=1.0,dev.vantage.cli;version:Version=3.0.1", p));
        // several names share one clause's attributes
        assertEquals("2.0.0", ExportedVersion.of("x.y;dev.vantage.cli;version=\"2.0.0\"", p));
        // a directive named version is not the attribute; a package named like a prefix is another package
        assertNull(ExportedVersion.of("dev.vantage.cli;version:=\"9\"", p));
        assertNull(ExportedVersion.of("dev.vantage.cli.more;version=1.0.0", p));
        assertNull(ExportedVersion.of("dev.vantage.cli", p));
    }
}
