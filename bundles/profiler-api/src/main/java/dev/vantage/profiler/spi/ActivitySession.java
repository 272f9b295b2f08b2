package dev.vantage.profiler.spi;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * One profile's collection of device activity, as Kineto's activity-profiler session. The core calls
 * {@link #start()}, the correlation methods while recording, {@link #stop()} and then {@link #collect()} once.
 */
@ConsumerType
public interface ActivitySession {

    /** Starts capturing device activity. */
    void start();

    /** Stops capturing; activities after this are not collected. */
    void stop();

    /**
     * Called on the launching thread when a CPU op starts: device work launched until the matching
     * {@link #popCorrelation()} belongs to it. The default does nothing, as Kineto's
     * {@code IActivityProfilerSession::pushCorrelationId}: a session whose activities belong to no host op (GC
     * pauses, a device that cannot record) leaves it as it is.
     *
     * @param correlation identifies the host op; device activities launched under it report it back as their
     *     {@link DeviceActivity#correlationId()}
     */
    default void pushCorrelation(long correlation) {
    }

    /**
     * Called on the launching thread when the CPU op of the last {@link #pushCorrelation} ends. The default does
     * nothing.
     */
    default void popCorrelation() {
    }

    /** Returns what was captured between start and stop; called once, after {@link #stop()}. */
    DeviceActivities collect();
}
