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
     *     {@code name}, and {@code requested_by}: what the client says of itself, which the capture keeps labelled
     *     as the client's claim after what the platform saw of the caller ({@code trigger=attach} is accepted from
     *     clients of an earlier release and changes nothing)
     * @return the capture's description
     * @throws IllegalArgumentException for an unknown key or a bad value, or a directory traces cannot go to
     * @throws IllegalStateException if a capture is already waiting or recording
     */
    String start(String[] options);

    /**
     * Stops the capture and returns the files written.
     *
     * @throws IllegalStateException if none is running, or a file could not be written (the message says which)
     */
    String stop();

    /** Returns the state and the last capture's files. */
    String status();
}
