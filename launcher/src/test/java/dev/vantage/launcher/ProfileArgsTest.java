package dev.vantage.launcher;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import org.junit.Test;

public class ProfileArgsTest {

    private static final Path CWD = Path.of("/home/u/work");

    private static ProfileArgs parse(String... args) {
        return ProfileArgs.parse(List.of(args), CWD);
    }

    private static String refusal(String... args) {
        return assertThrows(IllegalArgumentException.class, () -> parse(args)).getMessage();
    }

    @Test
    public void startFlagsBecomeTheOptionsThePlatformTakes() {
        ProfileArgs a = parse("4711", "start", "--iterations", "20", "--activities", "CPU", "NPU,MEM", "--export",
                "chrome", "csv", "--dir", "traces/../out", "--name", "bert");
        assertEquals(ProfileArgs.Action.START, a.action());
        assertEquals(4711, a.pid());
        assertEquals(List.of("iterations=20", "activities=CPU,NPU,MEM", "export=chrome,csv",
                "dir=/home/u/work/out", "name=bert"), a.options());

        assertEquals(List.of("duration=500", "dir=/abs/dir"),
                parse("1", "start", "--duration", "500ms", "--dir", "/abs/dir").options());
        // neither --duration nor --iterations: a capture until 'stop'
        assertEquals(List.of(), parse("1", "start").options());
    }

    @Test
    public void listStatusStopAndHelpTakeNoOptions() {
        assertEquals(new ProfileArgs(ProfileArgs.Action.LIST, 0, List.of()), parse("--list"));
        assertEquals(new ProfileArgs(ProfileArgs.Action.STATUS, 12, List.of()), parse("12", "status"));
        assertEquals(new ProfileArgs(ProfileArgs.Action.STOP, 12, List.of()), parse("12", "stop"));
        assertEquals(ProfileArgs.Action.HELP, parse("--help").action());
        assertEquals(ProfileArgs.Action.HELP, parse("12", "start", "--duration", "x", "-h").action());
    }

    @Test
    public void durationsConvertToMilliseconds() {
        assertEquals(500, ProfileArgs.durationMillis("500ms"));
        assertEquals(2_000, ProfileArgs.durationMillis("2s"));
        assertEquals(1_500, ProfileArgs.durationMillis("1.5s"));
        assertEquals(60_000, ProfileArgs.durationMillis("1m"));
        assertEquals(90_000, ProfileArgs.durationMillis("1.5m"));
        assertEquals(1, ProfileArgs.durationMillis("0.001s"));
    }

    @Test
    public void badDurationsAreRefusedNamingTheValue() {
        assertEquals("--duration takes a time such as 500ms, 2s, 1.5s or 1m, not '2'", refusal("1", "start",
                "--duration", "2"));
        assertEquals("--duration takes a time such as 500ms, 2s, 1.5s or 1m, not '2h'", refusal("1", "start",
                "--duration", "2h"));
        assertEquals("--duration takes a time such as 500ms, 2s, 1.5s or 1m, not '-1s'", refusal("1", "start",
                "--duration", "-1s"));
        assertEquals("--duration must be more than zero, not '0s'", refusal("1", "start", "--duration", "0s"));
        assertEquals("--duration '1.0005s' is not a whole number of milliseconds", refusal("1", "start",
                "--duration", "1.0005s"));
        assertEquals("--duration '99999999999999999999ms' is too long", refusal("1", "start", "--duration",
                "99999999999999999999ms"));
        assertEquals("--duration needs a value", refusal("1", "start", "--duration"));
    }

    @Test
    public void badFlagsAndSubcommandsAreRefused() {
        assertEquals("--iterations takes a positive whole number, not '0'", refusal("1", "start", "--iterations",
                "0"));
        assertEquals("--iterations takes a positive whole number, not 'many'", refusal("1", "start",
                "--iterations", "many"));
        assertEquals("--duration and --iterations exclude each other: give one, or neither to capture until"
                + " 'stop'", refusal("1", "start", "--duration", "2s", "--iterations", "5"));
        assertEquals("--name takes a plain file name, without '/', '\\' or '..', not '../x'", refusal("1", "start",
                "--name", "../x"));
        assertEquals("--name takes a plain file name, without '/', '\\' or '..', not 'a/b'", refusal("1", "start",
                "--name", "a/b"));
        assertEquals("--name is given twice", refusal("1", "start", "--name", "a", "--name", "b"));
        assertEquals("--activities needs at least one value", refusal("1", "start", "--activities", "--name",
                "a"));
        assertEquals("unknown flag '--with-stack' for 'profile start'; see 'vantage profile --help'",
                refusal("1", "start", "--with-stack"));
        assertEquals("'abc' is not a process id; 'vantage profile --list' shows the running platforms",
                refusal("abc", "start"));
        assertEquals("'0' is not a process id; 'vantage profile --list' shows the running platforms",
                refusal("0", "status"));
        assertEquals("unknown subcommand 'pause' for 'profile'; use start, status or stop", refusal("1", "pause"));
        assertEquals("'profile 1' needs start, status or stop", refusal("1"));
        assertEquals("'status' takes no arguments, not '--duration'", refusal("1", "status", "--duration", "2s"));
        assertEquals("--list takes no other arguments, not '12'", refusal("--list", "12"));
        assertEquals("unknown flag '--all' for 'profile'; see 'vantage profile --help'", refusal("--all"));
        assertEquals("profile needs a process id or --list; see 'vantage profile --help'", refusal());
    }

    @Test
    public void clientPrintsOneLineAndExitsTwoOnBadArgumentsBeforeAttaching() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = ProfileClient.run(List.of("abc", "start"), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(2, code);
        assertEquals("", out.toString(StandardCharsets.UTF_8));
        assertEquals("vantage: 'abc' is not a process id; 'vantage profile --list' shows the running platforms\n",
                err.toString(StandardCharsets.UTF_8));

        out.reset();
        assertEquals(0, ProfileClient.run(List.of("--help"), new PrintStream(out, true, StandardCharsets.UTF_8),
                System.err));
        String help = out.toString(StandardCharsets.UTF_8);
        assertTrue(help, help.startsWith("usage: vantage profile --list\n"));
        for (String form : List.of("<pid> start", "<pid> status", "<pid> stop", "--duration", "--iterations",
                "--activities", "--export", "--dir", "--name")) {
            assertTrue(form, help.contains(form));
        }
    }

    @Test
    public void profileIsAVerbTheLauncherRunsItself() {
        assertEquals(LauncherArgs.Mode.TOOL, LauncherArgs.parse(new String[] {"profile", "--list"}).mode);
        assertEquals(LauncherArgs.Mode.TOOL, LauncherArgs.parse(new String[] {"profile", "--help"}).mode);
        assertEquals(List.of("profile", "12", "start", "--duration", "2s"),
                LauncherArgs.parse(new String[] {"profile", "12", "start", "--duration", "2s"}).platformArgs);
        assertEquals(LauncherArgs.Mode.COMMAND, LauncherArgs.parse(new String[] {"--version"}).mode);
    }
}
