package dev.vantage.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code vantage shell}: {@code serve} with an interactive Gogo shell on the terminal. */
@Command(name = "shell", description = "run the platform with an interactive Gogo shell (lb, scr:list,"
        + " vantage:devices, vantage:run, profiler:start)",
        footer = {"", "'exit' or 'stop 0' leaves. The deploy directory is watched as by 'serve'."})
public final class ShellCommand implements Verb {

    @Mixin
    private PlatformOptions platform;

    @Override
    public Host host() {
        return Host.SERVICE;
    }

    /** Returns the deploy directory and JMX flags. */
    public PlatformOptions platform() {
        return platform;
    }
}
