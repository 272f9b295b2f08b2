package dev.vantage.device.kit;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;

import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.spi.ActivitySession;
import dev.vantage.profiler.spi.DeviceActivities;
import dev.vantage.profiler.spi.DeviceActivitySource;

/**
 * A device activity source over a swappable driver: it opens a {@link DriverSession} per profile that asks for its
 * activity, and when {@link #swapDriver} gives it another driver (a vendor's driver arriving, or leaving for the
 * emulated one), every session still recording moves to it, so a profile across the swap keeps the events of
 * both drivers. A device bundle's source component extends it and binds its driver as a dynamic, greedy
 * reference whose bind method calls {@link #swapDriver}.
 *
 * @param <D> the bundle's driver interface
 */
public abstract class DriverActivitySource<D extends TracingDriver> implements DeviceActivitySource {

    private final Activity activity;
    private final String deviceType;
    private final Set<DriverSession> open = new CopyOnWriteArraySet<>();
    private volatile D driver;

    /** Creates a source of an activity for a device type; the driver comes through {@link #swapDriver}. */
    protected DriverActivitySource(Activity activity, String deviceType) {
        this.activity = activity;
        this.deviceType = deviceType;
    }

    /** Creates a source on a driver: for tests and for use without a framework. */
    protected DriverActivitySource(Activity activity, D driver) {
        this(activity, driver.deviceType());
        this.driver = driver;
    }

    @Override
    public final Activity activity() {
        return activity;
    }

    @Override
    public final String deviceType() {
        return deviceType;
    }

    /** Returns the driver sessions open now record from. */
    protected final D driver() {
        return driver;
    }

    /**
     * Moves this source, and every session still recording, to another driver of the same device type.
     *
     * @throws IllegalArgumentException if the driver serves another device type
     */
    public void swapDriver(D next) {
        if (!next.deviceType().equals(deviceType)) {
            throw new IllegalArgumentException("the " + deviceType + " source cannot use a " + next.deviceType()
                    + " driver");
        }
        driver = next;
        for (DriverSession s : open) {
            s.swapDriver(next);
        }
    }

    /** Returns how many sessions are recording or not yet collected; for tests. */
    public final int openSessions() {
        return open.size();
    }

    @Override
    public ActivitySession configure(Set<Activity> requested, Map<String, String> config) {
        if (!requested.contains(activity)) {
            return null;
        }
        DriverSession session = newSession(driver, config);
        open.add(session);
        return new ActivitySession() {
            @Override
            public void start() {
                session.start();
            }

            @Override
            public void stop() {
                session.stop();
                open.remove(session);
            }

            @Override
            public void pushCorrelation(long correlation) {
                session.pushCorrelation(correlation);
            }

            @Override
            public void popCorrelation() {
                session.popCorrelation();
            }

            @Override
            public DeviceActivities collect() {
                try {
                    return session.collect();
                } finally {
                    open.remove(session);
                }
            }
        };
    }

    /** Opens a session over a driver; a bundle with facts of its own returns a {@link DriverSession} subclass. */
    protected DriverSession newSession(D driver, Map<String, String> config) {
        return new DriverSession(driver, config);
    }
}
