package dev.vantage.cli;

import static org.junit.Assert.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.Test;

/**
 * The README's table of verbs lists exactly the command tree's verbs, in the order {@code vantage --help} lists
 * them; the help and the bash completion come from the tree itself ({@link CliTest}, {@link CompletionTest}).
 */
public class ReadmeVerbsTest {

    private static final Pattern ROW = Pattern.compile("^\\| `([a-z]+)[^`]*` \\|");

    @Test
    public void theReadmeTableListsEveryVerbOfTheCommandTree() throws Exception {
        List<String> lines = Files.readAllLines(Path.of("../../README.md"));
        int header = lines.indexOf("| verb | what it does |");
        List<String> verbs = new ArrayList<>();
        for (int i = header + 2; i < lines.size() && lines.get(i).startsWith("|"); i++) {
            Matcher m = ROW.matcher(lines.get(i));
            if (m.find()) {
                verbs.add(m.group(1));
            }
        }
        assertEquals(Cli.verbs(), verbs);
    }
}
