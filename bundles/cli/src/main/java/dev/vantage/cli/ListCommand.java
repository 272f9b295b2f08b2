package dev.vantage.cli;

import picocli.CommandLine.Command;

/** The verbs that list what a distribution holds; they take no flags and run in the platform. */
public final class ListCommand {

    private ListCommand() {
    }

    /** {@code vantage workloads}. */
    @Command(name = "workloads", description = "list the workloads 'vantage run' runs, with a line about each")
    public static final class Workloads implements Verb {
        @Override
        public Host host() {
            return Host.PLATFORM;
        }
    }

    /** {@code vantage bundles}. */
    @Command(name = "bundles", description = "list the platform's bundles with symbolic name, version and state")
    public static final class Bundles implements Verb {
        @Override
        public Host host() {
            return Host.PLATFORM;
        }
    }

    /** {@code vantage devices}. */
    @Command(name = "devices", description = "list the device backends: device type, dispatch key, emulated or"
            + " native, bundle and version")
    public static final class Devices implements Verb {
        @Override
        public Host host() {
            return Host.PLATFORM;
        }
    }

    /** {@code vantage exporters}. */
    @Command(name = "exporters", description = "list the trace formats with the bundle and version that provide"
            + " each")
    public static final class Exporters implements Verb {
        @Override
        public Host host() {
            return Host.PLATFORM;
        }
    }

    /** {@code vantage features}. */
    @Command(name = "features", description = "list the features (named sets of bundles) a distribution can be"
            + " assembled from")
    public static final class Features implements Verb {
        @Override
        public Host host() {
            return Host.LAUNCHER;
        }
    }
}
