package dev.vantage.launcher.attach;

import java.lang.management.ManagementFactory;
import java.util.List;

import javax.management.ObjectName;
import javax.management.StandardMBean;

/**
 * A stand-in for a running platform, started as a child JVM by {@link ProfileClientTest}: {@code platform} sets
 * {@code vantage.platform=test} and registers a fake profiler MBean under {@value ProfileClient#MBEAN}, which keeps
 * its state in {@code vantage.capture} as the platform's does;
 * {@code no-profiler} sets the property only; {@code plain} neither. Prints {@code ready} once set up, then runs
 * until its standard input closes.
 */
public final class FakePlatform {

    /** The operations of the platform's profiler MBean, with the platform's contract. */
    public interface Operations {
        /** Starts a capture; throws IllegalStateException if one runs, IllegalArgumentException for a bad option. */
        String start(String[] options);

        /** Describes the capture, or says there is none. */
        String status();

        /** Ends the capture; throws IllegalStateException if none runs. */
        String stop();
    }

    /** Records the options of the running capture and answers with them, one {@code option: } line each. */
    static final class FakeProfiler implements Operations {
        private List<String> running;

        @Override
        public synchronized String start(String[] options) {
            if (running != null) {
                throw new IllegalStateException("a capture is already running: requested by "
                        + running.stream().filter(o -> o.startsWith("requested_by=")).findFirst().orElse("?"));
            }
            for (String o : options) {
                if (o.equals("activities=BOGUS")) {
                    throw new IllegalArgumentException("unknown activity 'BOGUS'; activities: CPU, NPU");
                }
            }
            running = List.of(options);
            System.setProperty("vantage.capture", "recording");
            return "capture started\n" + lines(running);
        }

        @Override
        public synchronized String status() {
            return running == null ? "no capture running" : "capturing\n" + lines(running);
        }

        @Override
        public synchronized String stop() {
            if (running == null) {
                throw new IllegalStateException("no capture is running");
            }
            running = null;
            System.setProperty("vantage.capture", "idle");
            return "capture stopped\ntraces written: 0";
        }

        private static String lines(List<String> options) {
            StringBuilder b = new StringBuilder();
            options.forEach(o -> b.append("option: ").append(o).append('\n'));
            return b.toString();
        }
    }

    private FakePlatform() {
    }

    public static void main(String[] args) throws Exception {
        String kind = args[0];
        if (!kind.equals("plain")) {
            System.setProperty("vantage.platform", "test");
            System.setProperty("vantage.platform.mode", "serve");
        }
        if (kind.equals("platform")) {
            System.setProperty("vantage.capture", "idle");
            ManagementFactory.getPlatformMBeanServer().registerMBean(
                    new StandardMBean(new FakeProfiler(), Operations.class), new ObjectName(ProfileClient.MBEAN));
        }
        System.out.println("ready");
        System.out.flush();
        while (System.in.read() >= 0) {
            // runs until the test closes our standard input
        }
    }
}
