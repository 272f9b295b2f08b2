package dev.vantage.ondemand.internal;

/**
 * The on-demand profiler over JMX, registered as {@code dev.vantage:type=Profiler} on the platform MBean server,
 * shaped as the JDK's {@code FlightRecorderMXBean} is used by {@code jcmd JFR.start/JFR.check/JFR.stop}: plain
 * strings in and out, so that any JMX client (the launcher's {@code vantage profile}, JConsole) can call it. Only
 * local clients reach it unless a JMX port is opened on purpose.
 */
public interface ProfilerControlMXBean {

    /**
     * Starts a capture.
     *
     * @param options {@code key=value} strings: {@code duration} (milliseconds), {@code iterations},
     *     {@code start_iteration}, {@code activities} and {@code export} (comma-separated), {@code dir} (absolute),
     *     {@code name}, {@code trigger}, {@code requested_by}
     * @return the capture's description
     * @throws IllegalArgumentException for an unknown key or a bad value
     * @throws IllegalStateException if a capture is already waiting or recording
     */
    String start(String[] options);

    /** Stops the capture and returns the files written. */
    String stop();

    /** Returns the state and the last capture's files. */
    String status();
}
