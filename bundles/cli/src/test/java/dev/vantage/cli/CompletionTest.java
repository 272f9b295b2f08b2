package dev.vantage.cli;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** The generated bash completion, run by bash itself as a user's shell would. */
public class CompletionTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    /** What bash's completion function offers for the words typed so far (the last one being completed). */
    private List<String> complete(String... words) throws IOException, InterruptedException {
        Path script = tmp.newFolder().toPath().resolve("vantage.bash");
        Files.writeString(script, Cli.bashCompletion());
        StringBuilder array = new StringBuilder();
        for (String w : words) {
            array.append(" '").append(w).append("'");
        }
        String probe = "source " + script + "\n"
                + "COMP_WORDS=(vantage" + array + ")\n"
                + "COMP_CWORD=" + words.length + "\n"
                + "COMP_LINE=\"${COMP_WORDS[*]}\"\nCOMP_POINT=${#COMP_LINE}\n"
                + "_complete_vantage vantage \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD-1]}\"\n"
                + "printf '%s\\n' \"${COMPREPLY[@]}\"\n";
        Process p = new ProcessBuilder("bash", "-c", probe).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue("bash did not finish", p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(out, 0, p.exitValue());
        List<String> offered = new ArrayList<>(Arrays.asList(out.strip().split("\n")));
        offered.removeIf(String::isBlank);
        return offered;
    }

    @Test
    public void bashCompletesEveryVerb() throws Exception {
        List<String> offered = complete("");
        assertTrue(offered + " ⊇ " + Cli.verbs(), offered.containsAll(Cli.verbs()));
    }

    @Test
    public void bashCompletesAVerbsFlags() throws Exception {
        List<String> offered = complete("run", "--profile-w");
        assertTrue(offered.toString(), offered.contains("--profile-wait"));
        assertTrue(offered.toString(), offered.contains("--profile-warmup"));
        assertTrue(offered.toString(), offered.contains("--profile-with-stack"));
        assertTrue(complete("profile", "4242", "st").containsAll(List.of("start", "status", "stop")));
    }
}
