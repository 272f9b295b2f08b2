package dev.vantage.profiler.api;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What an on-demand capture records and where it goes ({@link OnDemandProfiler#start}).
 *
 * <p>The window is a duration ({@code durationMillis > 0}: from the next step boundary when the platform marks
 * steps, else from now, until the time is up), a number of whole steps ({@code iterations > 0}: Kineto's
 * iteration trigger, from the next step boundary, or from step {@code startIteration} when it is set), or, with
 * neither, everything until {@link OnDemandProfiler#stop()}.
 *
 * @param durationMillis the window's length in milliseconds, or 0
 * @param iterations the steps to record, or 0
 * @param startIteration the step (as the platform counts them) at which an iteration window starts, or 0 for
 *     the next one
 * @param activities what to record; empty for CPU and every installed device's activity
 * @param exports the trace formats to write; empty for {@code chrome}
 * @param dir where the traces go; null for {@code $VANTAGE_PROFILER_DIR}, else {@code ./vantage_profiles}
 * @param name the traces' base name; null for {@code ondemand-<pid>-<date>-<time>}
 * @param trigger how the capture was asked for: {@code attach}, {@code shell} or {@code config}
 * @param requestedBy who asked, such as {@code pid 4242 user ana} or {@code file /opt/deploy/x.cfg}
 */
public record CaptureRequest(long durationMillis, int iterations, long startIteration, Set<Activity> activities,
        List<String> exports, Path dir, String name, String trigger, String requestedBy) {

    /**
     * Checks the window and copies the collections.
     *
     * @throws IllegalArgumentException if a count is negative, or both a duration and iterations are given
     */
    public CaptureRequest {
        if (durationMillis < 0 || iterations < 0 || startIteration < 0) {
            throw new IllegalArgumentException("a capture's duration, iterations and start iteration are 0 or"
                    + " more; got " + durationMillis + " ms, " + iterations + ", " + startIteration);
        }
        if (durationMillis > 0 && iterations > 0) {
            throw new IllegalArgumentException("a capture takes a duration or a number of iterations, not both");
        }
        if (startIteration > 0 && iterations == 0) {
            throw new IllegalArgumentException("a start iteration needs a number of iterations to record");
        }
        activities = Set.copyOf(activities);
        exports = List.copyOf(exports);
        Objects.requireNonNull(trigger, "trigger");
        Objects.requireNonNull(requestedBy, "requestedBy");
    }
}
